{#- A billing event takes its campaign, account and billing type from its ad,
    and only the event type its billing type bills for costs money (CPC
    clicks, CPM impressions, oCPM conversions; the billing_types seed): every
    other event of the ad costs 0. An event that disagrees with its ad would
    be billed to the wrong customer or at the wrong price; one whose ad,
    campaign or billing type is missing could not be billed at all. So per
    batch this test also stands for DWD's relationships tests of ad_id,
    campaign_id, billing_type and account_id (an event's account is its
    campaign's, which ods_campaigns' own test finds among the accounts),
    which run in whole-table builds only (models/dwd/_dwd__models.yml).
    Fails with one row per wrong event. An event's ad, campaign and billing
    type are fixed when it is written, so it is a row test (its meta): with
    lakehouse_test_scope: changed it reads only the events this run wrote in
    dwd_billing_events (written_rows: its rows of the build's commits, in the
    days they wrote); a full check also catches a dimension changed since. -#}

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
            when ads.ad_id is null
                then 'ad not in ods_ads'
            when campaigns.campaign_id is null
                then 'campaign of its ad not in ods_campaigns'
            when billing_types.billing_type is null
                then 'billing type of its ad not in billing_types'
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
    left join ads
        on events.ad_id = ads.ad_id
    left join campaigns
        on ads.campaign_id = campaigns.campaign_id
    left join billing_types
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
