{#- Campaigns of the advertiser accounts: static reference data, loaded once from its landed file. -#}

{{ config(unique_key='campaign_id', incremental_strategy='upsert', table_type='cow') }}

select * from {{ landed_dimension('campaigns', 'campaign_id bigint, account_id bigint, campaign_name string, objective string') }} as campaigns
