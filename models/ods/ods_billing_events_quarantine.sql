{#- The landed billing lines that cannot be billed, with the raw text and the
    reason (broken_json, missing_key, bad_value, negative_cost,
    unknown_account), so that nothing that arrived is lost silently. -#}

with

raw_lines as (

    select * from {{ lake_changes(ref('ods_billing_events_raw')) }} as upstream_changes

),

final as (

    select
        raw_line,
        quarantine_reason,
        source_file,
        landed_batch,
        ingested_at
    from raw_lines
    where quarantine_reason is not null

)

select * from final
