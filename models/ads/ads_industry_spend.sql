{{ config(
    unique_key=['event_date', 'industry'],
) }}

with

dws_account_daily_spend as (

    select * from {{ ref('dws_account_daily_spend') }}

),

final as (

    select
        event_date,
        industry,
        sum(spend_micros) as spend_micros,
        sum(impressions) as impressions,
        sum(clicks) as clicks,
        sum(conversions) as conversions,
        count(distinct account_id) as active_accounts
    from dws_account_daily_spend
    group by
        event_date,
        industry

)

select * from final
