{#- Money is neither created nor lost on the way up: total cost in DWD equals
    total spend in DWS and in ADS. Returns one row (the three totals) when they
    differ, none when they agree. DWD cost of an account missing from
    `accounts` counts as lost here (DWS joins accounts); the relationships test
    on dwd_billing_events.account_id names such accounts. -#}

with

dwd_billing_events as (

    select * from {{ ref('dwd_billing_events') }}

),

dws_account_daily_spend as (

    select * from {{ ref('dws_account_daily_spend') }}

),

ads_industry_spend as (

    select * from {{ ref('ads_industry_spend') }}

),

dwd_total as (

    select coalesce(sum(cost_micros), 0) as cost_micros
    from dwd_billing_events

),

dws_total as (

    select coalesce(sum(spend_micros), 0) as spend_micros
    from dws_account_daily_spend

),

ads_total as (

    select coalesce(sum(spend_micros), 0) as spend_micros
    from ads_industry_spend

),

final as (

    select
        dwd_total.cost_micros as dwd_cost_micros,
        dws_total.spend_micros as dws_spend_micros,
        ads_total.spend_micros as ads_spend_micros
    from dwd_total
    cross join dws_total
    cross join ads_total
    where
        dwd_total.cost_micros != dws_total.spend_micros
        or dws_total.spend_micros != ads_total.spend_micros

)

select * from final
