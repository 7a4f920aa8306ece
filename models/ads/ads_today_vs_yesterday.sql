{#- Spend today so far against yesterday by the same time, by industry and in
    total (industry `all`). "Now" is the newest billed event; both days count
    whole hours up to and including its hour, so the two sides cover the same
    hours of the day. -#}

{{ config(unique_key='industry') }}

with

hourly as (

    select * from {{ ref('dws_spend_hourly') }}
    where events != 0

),

accounts as (

    select * from {{ ref('dwd_accounts') }}

),

as_of as (

    select
        max(event_time) as as_of_time,
        to_date(max(event_time)) as today,
        hour(max(event_time)) as as_of_hour
    from {{ ref('dwd_billing_events') }}

),

same_hours as (

    select
        coalesce(accounts.industry, 'unknown') as industry,
        sum(case when hourly.event_date = as_of.today then hourly.spend_micros else 0 end)
            as spend_today_micros,
        sum(case when hourly.event_date = date_sub(as_of.today, 1) then hourly.spend_micros else 0 end)
            as spend_yesterday_micros
    from hourly
    cross join as_of
    left join accounts
        on hourly.account_id = accounts.account_id
    where
        hourly.event_date in (as_of.today, date_sub(as_of.today, 1))
        and hourly.event_hour <= as_of.as_of_hour
    group by coalesce(accounts.industry, 'unknown')

),

with_total as (

    select * from same_hours
    union all
    select
        'all' as industry,
        sum(spend_today_micros) as spend_today_micros,
        sum(spend_yesterday_micros) as spend_yesterday_micros
    from same_hours

),

final as (

    select
        with_total.industry,
        with_total.spend_today_micros,
        with_total.spend_yesterday_micros,
        with_total.spend_today_micros - with_total.spend_yesterday_micros as change_micros,
        case
            when with_total.spend_yesterday_micros != 0
                then round(
                    100.0 * (with_total.spend_today_micros - with_total.spend_yesterday_micros)
                    / with_total.spend_yesterday_micros,
                    1
                )
        end as change_pct,
        as_of.as_of_time
    from with_total
    cross join as_of

)

select * from final
