{#- The landed batch's lines, parsed, appended as they are: no key, no
    index lookup. Each batch goes into new files (no rewrite of the newest
    file, as the warehouse's ODS tables). -#}

{%- set table_format = env_var('ADLAKE_BENCH_TABLE_FORMAT', 'hudi') -%}
{{ config(
    materialized='incremental',
    file_format=table_format,
    incremental_strategy='append',
    file_sizing=({'small_file_mb': 0} if table_format == 'hudi' else none),
) }}

select
    cast(landed.event_id as string) as event_id,
    cast(landed.event_version as int) as event_version,
    cast(landed.event_time as timestamp) as event_time,
    cast(landed.account_id as int) as account_id,
    cast(landed.cost_micros as bigint) as cost_micros,
    {{ var('batch') }} as landed_batch
from json.`{{ var('batch_dir') }}` as landed
