{#- Spend per customer (advertiser account): rebuilt whole each run. -#}

{{ config(materialized='table', file_format='parquet') }}

select
    account_id,
    sum(spend_micros) as spend_micros,
    sum(events) as events
from {{ ref('dws_daily_spend') }}
group by account_id
