{#- Spend per customer (advertiser account): a small table, rebuilt. -#}

{{ config(materialized='table', file_format=env_var('ADLAKE_BENCH_TABLE_FORMAT', 'hudi')) }}

select
    account_id,
    sum(spend_micros) as spend_micros,
    sum(events) as events
from {{ ref('dws_daily_spend') }}
where events != 0
group by account_id
