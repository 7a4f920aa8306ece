{#- dbt-spark on Hudi, as its docs and Hudi's write it: the landed batch's
    lines appended (insert into) to a copy-on-write Hudi table, stamped with
    the time they were ingested. -#}

{{ config(
    materialized='incremental',
    file_format='hudi',
    incremental_strategy='append',
    options={'type': 'cow'},
) }}

select
    cast(landed.event_id as string) as event_id,
    cast(landed.event_version as int) as event_version,
    cast(landed.event_time as timestamp) as event_time,
    cast(landed.account_id as int) as account_id,
    cast(landed.cost_micros as bigint) as cost_micros,
    {{ var('batch') }} as landed_batch,
    current_timestamp() as ingested_at
from json.`{{ var('batch_dir') }}` as landed
