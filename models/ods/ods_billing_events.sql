{#- The billable lines of the billing feed, typed: every valid line once, in
    the order it landed. Duplicates, corrections and stale versions are all
    kept here; DWD decides which version of an event wins. -#}

with

raw_lines as (

    select * from {{ lake_changes(ref('ods_billing_events_raw')) }} as upstream_changes

),

final as (

    select
        event_id,
        event_version,
        event_type,
        event_time,
        account_id,
        campaign_id,
        ad_id,
        media_id,
        billing_type,
        cost_micros,
        source_file,
        landed_batch,
        ingested_at
    from raw_lines
    where quarantine_reason is null

)

select * from final
