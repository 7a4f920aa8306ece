{#- Spend by day and customer (advertiser account), with its agency and
    industry, for the BI dashboard. -#}

{{ config(unique_key=['event_date', 'account_id']) }}

with

daily as (

    select * from {{ ref('dws_spend_daily') }}

),

final as (

    select
        event_date,
        account_id,
        account_name,
        agency_name,
        industry,
        {{ micros_to_currency('sum(spend_micros)') }} as spend,
        sum(spend_micros) as spend_micros,
        sum(impressions) as impressions,
        sum(clicks) as clicks,
        sum(conversions) as conversions
    from daily
    group by event_date, account_id, account_name, agency_name, industry

)

select * from final
