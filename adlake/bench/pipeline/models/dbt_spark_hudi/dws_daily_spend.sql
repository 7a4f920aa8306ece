{#- Spend and events by day and account: the days the new DWD rows touch
    (high-water mark on ingested_at) recomputed from DWD and merged by a
    surrogate key (dbt-spark's Hudi options take one primaryKey, equal to
    unique_key). -#}

{{ config(
    materialized='incremental',
    file_format='hudi',
    incremental_strategy='merge',
    unique_key='spend_key',
    partition_by=['event_date'],
    options={'type': 'cow', 'primaryKey': 'spend_key', 'preCombineField': 'ingested_at'},
) }}

with

events as (

    select * from {{ ref('dwd_events') }}
    {% if is_incremental() %}
        where event_date in (
            select distinct new_events.event_date
            from {{ ref('dwd_events') }} as new_events
            where new_events.ingested_at > (
                select max(this.ingested_at) as high_water from {{ this }} as this
            )
        )
    {% endif %}

)

select
    event_date,
    account_id,
    concat(cast(event_date as string), '/', cast(account_id as string)) as spend_key,
    sum(cost_micros) as spend_micros,
    count(*) as events,
    max(ingested_at) as ingested_at
from events
group by event_date, account_id
