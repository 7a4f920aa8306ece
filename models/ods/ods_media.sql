{#- Media (where ads run): static reference data, loaded once from its landed file. -#}

{{ config(
    unique_key='media_id',
    incremental_strategy='upsert',
    table_type='cow',
) }}

{%- set row_schema = 'media_id bigint, media_name string, media_type string' %}

with

landed as (

    select * from {{ landed_dimension('media', row_schema) }} as landed

),

final as (

    select
        media_id,
        media_name,
        media_type,
        source_file,
        file_sha256
    from landed

)

select * from final
