{#- Spend today so far against yesterday up to the same time of day, by
    industry and in total (industry `all`). "Now" is the newest billed event
    (the data's own clock); yesterday counts the events up to exactly 24 hours
    before it. Reads the two days' partitions of DWD only (billing_clock). -#}

{{ config(unique_key='industry') }}

with

daily as (

    select * from {{ ref('dws_spend_daily') }}

),

events as (

    {#- The two days' partitions of DWD only: the scalar subquery (the day
        before the newest day with events) prunes them (the cross join with
        as_of below would not). -#}
    select * from {{ ref('dwd_billing_events') }}
    where event_date >= (select date_sub(max(daily.event_date), 1) as first_day from daily)

),

account_labels as (

    select * from {{ ref('dwd_account_labels') }}

),

clock as (

    {{ billing_clock() }}

),

as_of as (

    select
        as_of_time,
        to_date(as_of_time) as today,
        date_sub(to_date(as_of_time), 1) as yesterday
    from clock

),

two_days as (

    select
        events.cost_micros,
        account_labels.industry,
        events.event_date = as_of.today as is_today
    from events
    cross join as_of
    left join account_labels
        on events.account_id = account_labels.account_id
    where
        events.event_date in (as_of.today, as_of.yesterday)
        and events.event_time <= case
            when events.event_date = as_of.today then as_of.as_of_time
            else as_of.as_of_time - interval 1 day
        end

),

by_industry as (

    select
        industry,
        sum(case when is_today then cost_micros else 0 end) as spend_today_micros,
        sum(case when not is_today then cost_micros else 0 end) as spend_yesterday_micros
    from two_days
    group by industry

),

with_total as (

    select * from by_industry
    union all
    select
        'all' as industry,
        coalesce(sum(spend_today_micros), 0) as spend_today_micros,
        coalesce(sum(spend_yesterday_micros), 0) as spend_yesterday_micros
    from by_industry

),

final as (

    select
        with_total.industry,
        with_total.spend_today_micros,
        with_total.spend_yesterday_micros,
        as_of.as_of_time,
        with_total.spend_today_micros - with_total.spend_yesterday_micros as change_micros,
        case
            when with_total.spend_yesterday_micros != 0
                then round(
                    100.0 * (with_total.spend_today_micros - with_total.spend_yesterday_micros)
                    / with_total.spend_yesterday_micros,
                    1
                )
        end as change_pct
    from with_total
    cross join as_of

)

select * from final
