{#- Nothing that landed is lost or doubled between the raw billing lines and
    their two destinations: every line of ods_billing_events_raw is either a
    valid line in ods_billing_events or a quarantined one in
    ods_billing_events_quarantine, exactly once. Both read the raw table by
    incremental commit reads, so a missed or repeated range would show here.
    Fails with one row holding the three counts when they do not add up. -#}

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

final as (

    select
        raw_count.n_lines as landed_lines,
        valid_count.n_lines as valid_lines,
        quarantine_count.n_lines as quarantined_lines
    from raw_count
    cross join valid_count
    cross join quarantine_count
    where raw_count.n_lines != valid_count.n_lines + quarantine_count.n_lines

)

select * from final
