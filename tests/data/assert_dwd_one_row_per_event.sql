{#- DWD keeps one row per event: as many rows as ODS has distinct event_ids
    (ODS keeps duplicates and every version; DWD must collapse them, neither
    dropping an event nor keeping two versions of one). Returns one row (both
    counts) when they differ. -#}

with

ods_billing_events as (

    select * from {{ ref('ods_billing_events') }}

),

dwd_billing_events as (

    select * from {{ ref('dwd_billing_events') }}

),

ods_events as (

    select count(distinct event_id) as distinct_event_count
    from ods_billing_events

),

dwd_rows as (

    select count(*) as total_rows
    from dwd_billing_events

),

final as (

    select
        ods_events.distinct_event_count as ods_distinct_event_count,
        dwd_rows.total_rows as dwd_row_count
    from ods_events
    cross join dwd_rows
    where ods_events.distinct_event_count != dwd_rows.total_rows

)

select * from final
