{#- One row per event, its highest version: copy-on-write, upserted by
    event_id, ordered by event_version. Reads only what ODS committed since
    the last run (a commit read); CDC with before and after images, for DWS's
    deltas: a copy-on-write writer stores them as it commits, so DWS's change
    read costs what changed (on merge-on-read Hudi would merge each touched
    file group to find the before images). -#}

{%- set table_format = env_var('ADLAKE_BENCH_TABLE_FORMAT', 'hudi') -%}
{{ config(
    materialized='incremental',
    file_format=table_format,
    table_type='cow',
    incremental_strategy='upsert',
    unique_key='event_id',
    precombine_key='event_version',
    partition_by='event_date',
    hudi_options=({
        'hoodie.table.cdc.enabled': true,
        'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER',
    } if table_format == 'hudi' else none),
) }}

select
    ods_changes.event_id,
    ods_changes.event_version,
    ods_changes.event_time,
    ods_changes.account_id,
    ods_changes.cost_micros,
    ods_changes.landed_batch,
    to_date(ods_changes.event_time) as event_date
from {{ lake_changes(ref('ods_events')) }} as ods_changes
