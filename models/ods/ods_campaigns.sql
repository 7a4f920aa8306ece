{#- Campaigns of the advertiser accounts: static reference data, loaded once
    from its landed file. -#}

{{ config(
    unique_key='campaign_id',
    incremental_strategy='upsert',
    table_type='cow',
) }}

{%- set row_schema = 'campaign_id bigint, account_id bigint, campaign_name string, objective string' %}

with

landed as (

    select * from {{ landed_dimension('campaigns', row_schema) }} as landed

),

final as (

    select
        campaign_id,
        account_id,
        campaign_name,
        objective,
        source_file,
        file_sha256
    from landed

)

select * from final
