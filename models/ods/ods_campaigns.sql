{#- Campaigns of the advertiser accounts: static reference data, loaded once
    from its landed file.
    The same few lines as ods_ads and ods_media, for this file: a model per
    dimension, each with its own record key and tests. -#}

{{ config(
    unique_key='campaign_id',
    incremental_strategy='upsert',
    table_type='cow',
) }}

{#- With its file unchanged since the last run, the model is not run. #}
{%- set landed_file = source('landing', 'campaigns') %}
{%- set files_to_read = landed_files_to_read_or_skip(landed_file) %}
{%- set row_schema = 'campaign_id bigint, account_id bigint, '
    ~ 'campaign_name string, objective string' %}

with

landed as (

    select * from {{ landed_dimension(landed_file, row_schema, files_to_read) }} as landed

),

final as (

    select
        campaign_id,
        account_id,
        campaign_name,
        objective,
        source_file,
        file_sha256,
        file_length,
        file_modified_at
    from landed

)

select * from final
