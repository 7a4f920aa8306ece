{#- Billing facts with their dimensions as they are now: the account's industry
    and agency (deleted accounts show as `unknown`), the campaign, the ad. A
    view, so an account change shows at once without rewriting any fact. -#}

{{ config(materialized='view') }}

with

events as (

    select * from {{ ref('dwd_billing_events') }}

),

account_labels as (

    select * from {{ ref('dwd_account_labels') }}

),

campaigns as (

    select * from {{ ref('ods_campaigns') }}

),

final as (

    select
        events.event_id,
        events.event_version,
        events.event_type,
        events.event_time,
        events.event_date,
        events.event_hour,
        events.account_id,
        events.campaign_id,
        campaigns.campaign_name,
        events.ad_id,
        events.media_id,
        events.media_name,
        events.media_type,
        events.billing_type,
        events.cost_micros,
        account_labels.account_name,
        account_labels.agency_name,
        account_labels.industry
    from events
    left join account_labels
        on events.account_id = account_labels.account_id
    left join campaigns
        on events.campaign_id = campaigns.campaign_id

)

select * from final
