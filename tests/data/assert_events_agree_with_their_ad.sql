{#- A billing event takes its campaign, account and billing type from its ad,
    and only the event type its billing type bills for costs money (CPC
    clicks, CPM impressions, oCPM conversions; the billing_types seed): every
    other event of the ad costs 0. An event that disagrees with its ad would
    be billed to the wrong customer or at the wrong price. Missing dimension
    rows are the relationships tests' job; this checks the rows that join.
    Fails with one row per wrong event. An event's ad, campaign and billing
    type are fixed when it is written, so it is a row test (its meta): with
    lakehouse_test_scope: changed it reads only the events this run wrote in
    dwd_billing_events (written_rows: an incremental read of its commits); a
    full check also catches a dimension changed since. -#}

{{ config(meta={'lakehouse_test_scope': 'rows'}) }}

with

events as (

    select * from {{ written_rows(ref('dwd_billing_events')) }}

),

ads as (

    select * from {{ ref('ods_ads') }}

),

campaigns as (

    select * from {{ ref('ods_campaigns') }}

),

billing_types as (

    select * from {{ ref('billing_types') }}

),

checked as (

    select
        events.event_id,
        events.event_type,
        events.billing_type,
        events.cost_micros,
        case
            when events.campaign_id != ads.campaign_id
                then 'campaign differs from its ad'
            when events.account_id != campaigns.account_id
                then 'account differs from its campaign'
            when events.billing_type != ads.billing_type
                then 'billing_type differs from its ad'
            when
                events.cost_micros > 0
                and events.event_type != billing_types.billed_event_type
                then 'cost on an event type its billing type does not bill'
        end as problem
    from events
    inner join ads
        on events.ad_id = ads.ad_id
    inner join campaigns
        on ads.campaign_id = campaigns.campaign_id
    inner join billing_types
        on ads.billing_type = billing_types.billing_type

),

final as (

    select
        event_id,
        problem,
        event_type,
        billing_type,
        cost_micros
    from checked
    where problem is not null

)

select * from final
