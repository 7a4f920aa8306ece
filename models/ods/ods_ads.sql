{#- Ads of the campaigns, with the billing type each ad bills by: static
    reference data, loaded once from its landed file.
    Written as ods_campaigns and ods_media are, for its own file, key and
    columns (a model per dimension, with its record key and tests); the
    reading is landed_dimension's. -#}

{{ config(
    unique_key='ad_id',
    incremental_strategy='upsert',
    table_type='cow',
) }}

{#- With its file unchanged since the last run, the model is not run. #}
{%- set landed_file = source('landing', 'ads') %}
{%- set files_to_read = landed_files_to_read_or_skip(landed_file) %}
{%- set row_schema = 'ad_id bigint, campaign_id bigint, ad_name string, billing_type string' %}

with

landed as (

    select * from {{ landed_dimension(landed_file, row_schema, files_to_read) }} as landed

),

final as (

    select
        ad_id,
        campaign_id,
        ad_name,
        billing_type,
        source_file,
        file_sha256,
        file_length,
        file_modified_at
    from landed

)

select * from final
