{#- The top advertisers by spend today: "today" is the day of the newest billed
    event (the data's own clock, so a replay shows what the dashboard showed).
    Ties share a rank. The number kept is the `top_n` var (default 10). -#}

{{ config(unique_key='account_id') }}

with

daily as (

    select * from {{ ref('dws_spend_daily') }}

),

as_of as (

    {{ billing_clock() }}

),

today as (

    select
        daily.account_id,
        daily.account_name,
        daily.agency_name,
        daily.industry,
        sum(daily.spend_micros) as spend_micros,
        sum(daily.clicks) as clicks,
        sum(daily.conversions) as conversions
    from daily
    inner join as_of
        on daily.event_date = to_date(as_of.as_of_time)
    group by daily.account_id, daily.account_name, daily.agency_name, daily.industry

),

ranked as (

    select
        today.*,
        rank() over (order by today.spend_micros desc) as spend_rank
    from today

),

final as (

    select
        ranked.spend_rank,
        ranked.account_id,
        ranked.account_name,
        ranked.agency_name,
        ranked.industry,
        ranked.spend_micros,
        ranked.clicks,
        ranked.conversions,
        as_of.as_of_time,
        {{ micros_to_currency('ranked.spend_micros') }} as spend
    from ranked
    cross join as_of
    where ranked.spend_rank <= {{ var('top_n', 10) }}

)

select * from final
