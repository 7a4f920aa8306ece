{#- Spend by day and industry, for the BI dashboard: the measures of
    ads_spend_by_customer, from the same daily table at another grain. -#}

{{ config(unique_key=['event_date', 'industry']) }}

with

daily as (

    select * from {{ ref('dws_spend_daily') }}

),

final as (

    select
        event_date,
        industry,
        {{ micros_to_currency('sum(spend_micros)') }} as spend,
        sum(spend_micros) as spend_micros,
        sum(impressions) as impressions,
        sum(clicks) as clicks,
        sum(conversions) as conversions,
        count(distinct account_id) as active_accounts
    from daily
    group by event_date, industry

)

select * from final
