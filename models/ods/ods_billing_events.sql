{#- The billable lines of the billing feed, typed: every valid line once, in
    the order it landed, and each held line once, in the run that released it
    (its account's insert landed). Duplicates, corrections and stale versions
    are all kept here; DWD decides which version of an event wins.
    ods_billing_events_quarantine reads the same two tables the same way:
    each model keeps its own change ranges of both, and the two models'
    conditions send every line to one of them (or leave it held). -#}

{%- set event_columns = ['event_id', 'event_version', 'event_type', 'event_time', 'account_id', 'campaign_id',
                         'ad_id', 'media_id', 'billing_type', 'cost_micros', 'source_file', 'landed_batch',
                         'ingested_at'] %}

{#- Each batch in new files (dbt_project.yml says why). #}
{{ config(file_sizing=on_hudi({'small_file_mb': 0})) }}

with

raw_lines as (

    select * from {{ lake_changes(ref('ods_billing_events_raw')) }} as upstream_changes

),

held_lines as (

    select * from {{ lake_changes(ref('ods_billing_events_held')) }} as upstream_changes

),

final as (

    select
    {%- for column in event_columns %}
            raw_lines.{{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
    from raw_lines
    where raw_lines.quarantine_reason is null

    union all

    select
    {%- for column in event_columns %}
            held_lines.{{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
    from held_lines
    where held_lines.hold_status = 'released'

)

select * from final
