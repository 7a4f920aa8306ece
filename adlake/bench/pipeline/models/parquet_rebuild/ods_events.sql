{#- Every landed batch's lines, parsed: rebuilt whole each run. The batch
    number is the folder's (batch=NNNNNN, Spark's partition discovery). -#}

{{ config(materialized='table', file_format='parquet') }}

select
    cast(landed.event_id as string) as event_id,
    cast(landed.event_version as int) as event_version,
    cast(landed.event_time as timestamp) as event_time,
    cast(landed.account_id as int) as account_id,
    cast(landed.cost_micros as bigint) as cost_micros,
    cast(landed.batch as int) as landed_batch
from json.`{{ var('landing_dir') }}` as landed
