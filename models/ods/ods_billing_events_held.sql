{#- Billing lines held because their account is not known yet (unknown_account:
    no insert of it has landed), so that a late dimension loses no revenue.
    Every run checks the held lines again with the account rules
    (account_rules.sql): a line whose account's insert has landed is
    released (hold_status 'released', read once by ods_billing_events), one
    whose account has been deleted by the event's time is quarantined
    (hold_status 'quarantined', read once by ods_billing_events_quarantine),
    the rest stay held. A line changes status at most once, and a run in which
    nothing changes writes no commit. -#}

{{ config(
    unique_key='line_id',
    incremental_strategy='upsert',
) }}

{%- set line_columns = ['line_id', 'raw_line', 'source_file', 'line_number', 'landed_batch', 'event_id',
                        'event_version', 'event_type', 'event_time', 'account_id', 'campaign_id', 'ad_id',
                        'media_id', 'billing_type', 'cost_micros', 'ingested_at'] %}

with

raw_lines as (

    select * from {{ lake_changes(ref('ods_billing_events_raw')) }} as upstream_changes

),

-- A line read again (a full re-read after a gap) keeps the status it has
-- here: a released line is never released twice.
stored_lines as (

    {% if is_incremental() -%}
        select * from {{ this }}
    {%- else -%}
        select
            {%- for column in line_columns %}
                raw_lines.{{ column }},
            {%- endfor %}
            cast(null as string) as hold_status
        from raw_lines
        where false
    {%- endif %}

),

account_states as (

    select * from {{ account_states() }} as account_states

),

newly_held as (

    select
        {%- for column in line_columns %}
            raw_lines.{{ column }},
        {%- endfor %}
        true as is_new
    from raw_lines
    where
        raw_lines.quarantine_reason = 'unknown_account'
        and not exists (
            select 1 as is_known from stored_lines
            where stored_lines.line_id = raw_lines.line_id
        )

),

still_held as (

    select
        {%- for column in line_columns %}
            stored_lines.{{ column }},
        {%- endfor %}
        false as is_new
    from stored_lines
    where stored_lines.hold_status = 'held'

),

checked as (

    select
        candidates.*,
        {{ account_reason('account_states', 'candidates.event_time') }} as account_reason
    from (
        select * from newly_held
        union all
        select * from still_held
    ) as candidates
    left join account_states
        on candidates.account_id = account_states.account_id

),

final as (

    select
        {%- for column in line_columns %}
            checked.{{ column }},
        {%- endfor %}
        checked.account_reason as quarantine_reason,
        case
            when checked.account_reason is null then 'released'
            when checked.account_reason = 'unknown_account' then 'held'
            else 'quarantined'
        end as hold_status,
        current_timestamp() as checked_at
    from checked
    {#- A line still held is not written again: nothing changed. #}
    where checked.is_new or checked.account_reason is distinct from 'unknown_account'

)

select * from final
