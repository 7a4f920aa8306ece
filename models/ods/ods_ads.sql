{#- Ads of the campaigns, with the billing type each ad bills by: static reference data, loaded once. -#}

{{ config(unique_key='ad_id', incremental_strategy='upsert', table_type='cow') }}

select * from {{ landed_dimension('ads', 'ad_id bigint, campaign_id bigint, ad_name string, billing_type string') }} as ads
