{#- Account changes (CDC) as they landed: one row per change line, each file
    exactly once. Duplicates and out-of-order changes are kept; dwd_accounts
    applies them in change_seq order. -#}

{#- With no new file the model is not run (skip_unchanged). #}
{%- set landed_feed = source('landing', 'account_changes') %}
{%- set files_to_read = landed_files_to_read_or_skip(landed_feed) %}

{#- Each batch in new files (dbt_project.yml says why). #}
{{ config(file_sizing=on_hudi({'small_file_mb': 0})) }}

with

landed as (

    select * from {{ landed_lines(landed_feed, files_to_read) }} as landed

),

parsed as (

    select
        landed.source_file,
        landed.file_sha256,
        landed.file_length,
        landed.file_modified_at,
        landed.landed_batch,
        from_json(
            landed.raw_line,
            'op string, account_id bigint, account_name string, agency_id bigint, '
            || 'agency_name string, industry string, change_time string, change_seq bigint'
        ) as account_change
    from landed

),

final as (

    select
        parsed.source_file,
        parsed.file_sha256,
        parsed.file_length,
        parsed.file_modified_at,
        parsed.landed_batch,
        parsed.account_change.op,
        parsed.account_change.account_id,
        parsed.account_change.account_name,
        parsed.account_change.agency_id,
        parsed.account_change.agency_name,
        parsed.account_change.industry,
        parsed.account_change.change_seq,
        to_timestamp(parsed.account_change.change_time) as change_time,
        current_timestamp() as ingested_at
    from parsed

)

select * from final
