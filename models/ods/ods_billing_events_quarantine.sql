{#- The landed billing lines that cannot be billed, with the raw text and the
    reason, so that nothing that arrived is lost silently: those the raw table
    rejected at once, and held lines whose account turned out deleted. Held
    lines (unknown_account) are not here until then: they may still be billed.
    Its reads are ods_billing_events' (each model has its own change ranges
    of the two tables), with the conditions that complete that model's. -#}

{%- set line_columns = ['raw_line', 'quarantine_reason', 'source_file', 'line_number', 'landed_batch', 'ingested_at'] %}

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
    {%- for column in line_columns %}
            raw_lines.{{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
    from raw_lines
    where raw_lines.quarantine_reason not in ('unknown_account')

    union all

    select
    {%- for column in line_columns %}
            held_lines.{{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
    from held_lines
    where held_lines.hold_status = 'quarantined'

)

select * from final
