{#- Media (where ads run): static reference data, loaded once from its landed file. -#}

{{ config(unique_key='media_id', incremental_strategy='upsert', table_type='cow') }}

select * from {{ landed_dimension('media', 'media_id bigint, media_name string, media_type string') }} as media
