{#- Billing events as they landed, appended once per batch (no dedup here: ODS
    keeps what arrived, DWD decides which version of an event wins). -#}

with

billing_events_sample as (

    select * from {{ ref('billing_events_sample') }}
    where
        batch_id <= {{ var('landed_through_batch', 999999) }}
        {% if is_incremental() %}
            and batch_id > (
                select coalesce(max(loaded.batch_id), 0) as max_batch_id
                from {{ this }} as loaded
            )
        {% endif %}

),

final as (

    select
        cast(batch_id as int) as batch_id,
        cast(event_id as string) as event_id,
        cast(event_version as int) as event_version,
        cast(account_id as bigint) as account_id,
        cast(cost_micros as bigint) as cost_micros,
        cast(event_at as timestamp) as event_at,
        lower(event_type) as event_type,
        trim(billing_type) as billing_type
    from billing_events_sample

)

select * from final
