{{ config(
    unique_key=['event_date', 'account_id'],
) }}

with

dwd_billing_events as (

    select * from {{ ref('dwd_billing_events') }}

),

accounts as (

    select * from {{ ref('accounts') }}

),

final as (

    select
        events.event_date,
        events.account_id,
        accounts.industry,
        accounts.agency_name,
        sum(events.cost_micros) as spend_micros,
        count_if(events.event_type = 'impression') as impressions,
        count_if(events.event_type = 'click') as clicks,
        count_if(events.event_type = 'conversion') as conversions
    from dwd_billing_events as events
    inner join accounts
        on events.account_id = accounts.account_id
    group by
        events.event_date,
        events.account_id,
        accounts.industry,
        accounts.agency_name

)

select * from final
