{#- Spend and events by day and account, exact by deltas: DWD's changes
    since the last run as signed rows (+1 after image, -1 before image),
    summed per group and added to the stored rows of the days they touch. -#}

{{ config(
    materialized='incremental',
    file_format=env_var('ADLAKE_BENCH_TABLE_FORMAT', 'hudi'),
    incremental_strategy='upsert',
    unique_key=['event_date', 'account_id'],
    partition_by='event_date',
) }}

with

deltas as (

    select
        event_date,
        account_id,
        sum(_sign * cost_micros) as spend_micros,
        sum(_sign) as events
    from {{ lake_signed_changes(ref('dwd_events'), ['event_date', 'account_id', 'cost_micros']) }}
        as signed_changes
    group by event_date, account_id

),

stored as (

    {#- Only the days the deltas touch: the scalar subquery runs before the
        scan, so the filter on the partition column prunes the other days. #}
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

)

select
    deltas.event_date,
    deltas.account_id,
    coalesce(stored.spend_micros, 0) + deltas.spend_micros as spend_micros,
    coalesce(stored.events, 0) + deltas.events as events
from deltas
left join stored
    on
        deltas.event_date = stored.event_date
        and deltas.account_id = stored.account_id
