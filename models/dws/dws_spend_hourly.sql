{#- Spend, impressions, clicks and conversions by hour x account x media, kept
    up to date by deltas: each run reads only the billing changes DWD committed
    since the last one (CDC before and after images, via lake_signed_changes)
    and adds them to the stored rows of the hours they touch. A correction
    moves its old cost out and its new cost in, a late event lands in its own
    (old) hour, a deleted event takes its cost out. Equals a full recompute
    from DWD after every run; an hour whose events all went away keeps a row of
    zeros. Partitioned by day: a batch reads and rewrites only the days its
    deltas touch, not the whole table. -#}

{{ config(
    materialized='incremental',
    unique_key=['event_date', 'event_hour', 'account_id', 'media_id'],
    incremental_strategy='upsert',
    partition_by='event_date',
) }}

with

signed_changes as (

    select *
    from {{ lake_signed_changes(ref('dwd_billing_events'),
        ['event_date', 'event_hour', 'account_id', 'media_id', 'event_type', 'cost_micros'])
    }} as signed_changes

),

deltas as (

    select
        event_date,
        event_hour,
        account_id,
        media_id,
        sum(_sign * cost_micros) as spend_micros,
        sum(case when event_type = 'impression' then _sign else 0 end) as impressions,
        sum(case when event_type = 'click' then _sign else 0 end) as clicks,
        sum(case when event_type = 'conversion' then _sign else 0 end) as conversions,
        sum(_sign) as events
    from signed_changes
    group by event_date, event_hour, account_id, media_id

),

stored as (

    {#- The rows the deltas add to: this table's, or none on a full build.
        An import that follows deltas, because only the days the deltas
        touch are read: the scalar subquery is
        evaluated before the scan, and a filter on the partition column
        prunes the days' folders (a join or an IN subquery would not: Spark
        prunes partitions dynamically only for a filtered build side). #}
    {%- if is_incremental() %}
        select * from {{ this }}
        where array_contains(
            (select collect_set(deltas.event_date) as touched_days from deltas),
            event_date
        )
    {%- else %}
        select * from deltas
        where false
    {%- endif %}

),

final as (

    select
        deltas.event_date,
        deltas.event_hour,
        deltas.account_id,
        deltas.media_id,
        coalesce(stored.spend_micros, 0) + deltas.spend_micros as spend_micros,
        coalesce(stored.impressions, 0) + deltas.impressions as impressions,
        coalesce(stored.clicks, 0) + deltas.clicks as clicks,
        coalesce(stored.conversions, 0) + deltas.conversions as conversions,
        coalesce(stored.events, 0) + deltas.events as events
    from deltas
    left join stored
        on
            deltas.event_date = stored.event_date
            and deltas.event_hour = stored.event_hour
            and deltas.account_id = stored.account_id
            and deltas.media_id = stored.media_id

)

select * from final
