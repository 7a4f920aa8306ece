{#- Ads of the campaigns, with the billing type each ad bills by: static
    reference data, loaded once from its landed file. -#}

{{ config(
    unique_key='ad_id',
    incremental_strategy='upsert',
    table_type='cow',
) }}

{%- set row_schema = 'ad_id bigint, campaign_id bigint, ad_name string, billing_type string' %}

with

landed as (

    select * from {{ landed_dimension('ads', row_schema) }} as landed

),

final as (

    select
        ad_id,
        campaign_id,
        ad_name,
        billing_type,
        source_file,
        file_sha256
    from landed

)

select * from final
