{#- dws_spend_hourly is kept up to date by adding CDC deltas to its stored
    rows, never by recomputing; this checks the promise that makes that safe:
    after every run its non-empty rows (events != 0) equal a full recompute
    from dwd_billing_events, group by group and measure by measure. A change
    read twice or missed, a correction applied to the wrong group or a full
    re-read added on top of the stored rows shows here, one row per wrong
    group. It scans the whole fact table once; with lakehouse_test_scope:
    changed, only the days this run wrote in either table (both are
    partitioned by day, and the scalar subquery prunes their partitions). -#}

{%- set in_scope = in_touched_partitions(
    [ref('dwd_billing_events'), ref('dws_spend_hourly')], 'event_date'
) %}

with

recomputed as (

    select
        dwd.event_date,
        dwd.event_hour,
        dwd.account_id,
        dwd.media_id,
        sum(dwd.cost_micros) as spend_micros,
        count_if(dwd.event_type = 'impression') as impressions,
        count_if(dwd.event_type = 'click') as clicks,
        count_if(dwd.event_type = 'conversion') as conversions,
        count(*) as events
    from {{ ref('dwd_billing_events') }} as dwd
    where {{ in_scope }}
    group by
        dwd.event_date,
        dwd.event_hour,
        dwd.account_id,
        dwd.media_id

),

hourly as (

    select * from {{ ref('dws_spend_hourly') }}
    where events != 0 and {{ in_scope }}

),

compared as (

    select
        recomputed.spend_micros as expected_spend_micros,
        hourly.spend_micros as actual_spend_micros,
        recomputed.events as expected_events,
        hourly.events as actual_events,
        coalesce(recomputed.event_date, hourly.event_date) as event_date,
        coalesce(recomputed.event_hour, hourly.event_hour) as event_hour,
        coalesce(recomputed.account_id, hourly.account_id) as account_id,
        coalesce(recomputed.media_id, hourly.media_id) as media_id,
        case
            when hourly.event_date is null
                then 'group has events in DWD but no row in DWS'
            when recomputed.event_date is null
                then 'group has a non-empty row in DWS but no events in DWD'
            when
                hourly.spend_micros != recomputed.spend_micros
                or hourly.impressions != recomputed.impressions
                or hourly.clicks != recomputed.clicks
                or hourly.conversions != recomputed.conversions
                or hourly.events != recomputed.events
                then 'measures differ from a recompute'
        end as problem
    from recomputed
    full outer join hourly
        on
            recomputed.event_date = hourly.event_date
            and recomputed.event_hour = hourly.event_hour
            and recomputed.account_id = hourly.account_id
            and recomputed.media_id = hourly.media_id

),

final as (

    select
        event_date,
        event_hour,
        account_id,
        media_id,
        problem,
        expected_spend_micros,
        actual_spend_micros,
        expected_events,
        actual_events
    from compared
    where problem is not null

)

select * from final
