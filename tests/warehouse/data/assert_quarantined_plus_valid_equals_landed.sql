{#- Nothing that landed is lost or doubled between the raw billing lines and
    their three destinations: every line of ods_billing_events_raw is a valid
    line in ods_billing_events, a quarantined one in
    ods_billing_events_quarantine, or a line still held in
    ods_billing_events_held (its account not known yet), exactly once. A
    released held line is in ods_billing_events, a held line found deleted in
    the quarantine. All read by change reads, so a missed or
    repeated range would show here. Fails with one row holding the counts
    when they do not add up. -#}

with

raw_count as (

    select count(*) as n_lines
    from {{ ref('ods_billing_events_raw') }}

),

valid_count as (

    select count(*) as n_lines
    from {{ ref('ods_billing_events') }}

),

quarantine_count as (

    select count(*) as n_lines
    from {{ ref('ods_billing_events_quarantine') }}

),

held_count as (

    select count(*) as n_lines
    from {{ ref('ods_billing_events_held') }}
    where hold_status = 'held'

),

final as (

    select
        raw_count.n_lines as landed_lines,
        valid_count.n_lines as valid_lines,
        quarantine_count.n_lines as quarantined_lines,
        held_count.n_lines as held_lines
    from raw_count
    cross join valid_count
    cross join quarantine_count
    cross join held_count
    where raw_count.n_lines != valid_count.n_lines + quarantine_count.n_lines + held_count.n_lines

)

select * from final
