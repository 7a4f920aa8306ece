{#- Spend per customer (advertiser account): a small Hudi table, rebuilt. -#}

{{ config(
    materialized='table',
    file_format='hudi',
    unique_key='account_id',
    options={'type': 'cow', 'primaryKey': 'account_id'},
) }}

select
    account_id,
    sum(spend_micros) as spend_micros,
    sum(events) as events
from {{ ref('dws_daily_spend') }}
group by account_id
