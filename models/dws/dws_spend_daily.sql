{#- Spend by day x account x industry x agency x media: the hourly DWS rolled up
    to days, with each account's current industry and agency (an account
    change re-labels its history; deleted accounts show as `unknown`). Rebuilt
    from the small hourly table each run, so it never lags a dimension change. -#}

with

hourly as (

    select * from {{ ref('dws_spend_hourly') }}
    where events != 0

),

account_labels as (

    select * from {{ ref('dwd_account_labels') }}

),

media as (

    select * from {{ ref('ods_media') }}

),

daily as (

    select
        event_date,
        account_id,
        media_id,
        sum(spend_micros) as spend_micros,
        sum(impressions) as impressions,
        sum(clicks) as clicks,
        sum(conversions) as conversions,
        sum(events) as events
    from hourly
    group by event_date, account_id, media_id

),

final as (

    select
        daily.event_date,
        daily.account_id,
        daily.media_id,
        media.media_name,
        media.media_type,
        daily.spend_micros,
        daily.impressions,
        daily.clicks,
        daily.conversions,
        daily.events,
        account_labels.account_name,
        account_labels.industry,
        account_labels.agency_name
    from daily
    left join account_labels
        on daily.account_id = account_labels.account_id
    left join media
        on daily.media_id = media.media_id

)

select * from final
