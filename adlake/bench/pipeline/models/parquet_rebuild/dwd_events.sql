{#- One row per event, its highest version: rebuilt whole each run. -#}

{{ config(materialized='table', file_format='parquet') }}

with

ranked as (

    select
        event_id,
        event_version,
        event_time,
        account_id,
        cost_micros,
        landed_batch,
        row_number() over (partition by event_id order by event_version desc) as version_rank
    from {{ ref('ods_events') }}

)

select
    event_id,
    event_version,
    event_time,
    account_id,
    cost_micros,
    landed_batch,
    to_date(event_time) as event_date
from ranked
where version_rank = 1
