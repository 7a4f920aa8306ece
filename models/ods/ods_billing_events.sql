{#- Billing events as they landed, appended once per batch (no dedup here: ODS
    keeps what arrived, DWD decides which version of an event wins). -#}

with

billing_events_sample as (

    select * from {{ ref('billing_events_sample') }}
    where batch_id <= {{ var('landed_through_batch', 999999) }}
    {% if is_incremental() %}
        and batch_id > (select coalesce(max(batch_id), 0) from {{ this }})
    {% endif %}

),

final as (

    select
        cast(batch_id as int) as batch_id,
        cast(event_id as string) as event_id,
        cast(event_version as int) as event_version,
        cast(account_id as bigint) as account_id,
        lower(event_type) as event_type,
        upper(billing_type) as billing_type,
        cast(cost_micros as bigint) as cost_micros,
        cast(event_at as timestamp) as event_at
    from billing_events_sample

)

select * from final
