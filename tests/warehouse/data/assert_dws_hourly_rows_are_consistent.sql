{#- Every row of dws_spend_hourly, the rows of zeros included, is a possible
    state of its group: no measure is negative (a delta applied twice the
    wrong way, or a before image without its after image, would push one
    below 0), events is impressions + clicks + conversions, and a row whose
    events went away (events = 0) holds no spend. Each row stands on its own:
    with lakehouse_test_scope: changed it reads only the days this run wrote
    (their partitions). Fails with one row per inconsistent row. -#}

with

hourly as (

    select * from {{ ref('dws_spend_hourly') }}
    where {{ in_touched_partitions([ref('dws_spend_hourly')], 'event_date') }}

),

final as (

    select
        event_date,
        event_hour,
        account_id,
        media_id,
        spend_micros,
        impressions,
        clicks,
        conversions,
        events
    from hourly
    where
        spend_micros < 0
        or impressions < 0
        or clicks < 0
        or conversions < 0
        or events != impressions + clicks + conversions
        or (events = 0 and spend_micros != 0)

)

select * from final
