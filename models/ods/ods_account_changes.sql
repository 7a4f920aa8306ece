{#- Account changes (CDC) as they landed: one row per change line, each file
    exactly once. Duplicates and out-of-order changes are kept; dwd_accounts
    applies them in change_seq order. -#}

with

landed as (

    select * from {{ landed_lines('account_changes') }} as landed

),

parsed as (

    select
        landed.source_file,
        landed.landed_batch,
        from_json(
            landed.raw_line,
            'op string, account_id bigint, account_name string, agency_id bigint, '
            || 'agency_name string, industry string, change_time string, change_seq bigint'
        ) as change
    from landed

),

final as (

    select
        parsed.change.op,
        parsed.change.account_id,
        parsed.change.account_name,
        parsed.change.agency_id,
        parsed.change.agency_name,
        parsed.change.industry,
        to_timestamp(parsed.change.change_time) as change_time,
        parsed.change.change_seq,
        parsed.source_file,
        parsed.landed_batch,
        current_timestamp() as ingested_at
    from parsed

)

select * from final
