{#- Media (where ads run): static reference data, loaded once from its landed file.
    Like ods_ads and ods_campaigns but for its file, key and columns. -#}

{{ config(
    unique_key='media_id',
    incremental_strategy='upsert',
    table_type='cow',
) }}

{#- With its file unchanged since the last run, the model is not run. #}
{%- set landed_file = source('landing', 'media') %}
{%- set files_to_read = landed_files_to_read_or_skip(landed_file) %}
{%- set row_schema = 'media_id bigint, media_name string, media_type string' %}

with

landed as (

    select * from {{ landed_dimension(landed_file, row_schema, files_to_read) }} as landed

),

final as (

    select
        media_id,
        media_name,
        media_type,
        source_file,
        file_sha256,
        file_length,
        file_modified_at
    from landed

)

select * from final
