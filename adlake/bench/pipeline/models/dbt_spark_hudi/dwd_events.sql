{#- One row per event, its highest version: a merge-on-read Hudi table,
    merged (MERGE INTO) by event_id, with event_version as Hudi's precombine
    field. New rows are found by the usual high-water mark on ingested_at. -#}

{{ config(
    materialized='incremental',
    file_format='hudi',
    incremental_strategy='merge',
    unique_key='event_id',
    partition_by=['event_date'],
    options={'type': 'mor', 'primaryKey': 'event_id', 'preCombineField': 'event_version'},
) }}

select
    event_id,
    event_version,
    event_time,
    account_id,
    cost_micros,
    landed_batch,
    ingested_at,
    to_date(event_time) as event_date
from {{ ref('ods_events') }}
{% if is_incremental() %}
    where ingested_at > (select max(this.ingested_at) as high_water from {{ this }} as this)
{% endif %}
