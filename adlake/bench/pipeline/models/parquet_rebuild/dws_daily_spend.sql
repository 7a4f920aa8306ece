{#- Spend and events by day and account: rebuilt whole each run. -#}

{{ config(materialized='table', file_format='parquet') }}

select
    event_date,
    account_id,
    sum(cost_micros) as spend_micros,
    count(*) as events
from {{ ref('dwd_events') }}
group by event_date, account_id
