{#- One row per billing event: the highest event_version wins, in whatever order
    the versions arrive (Hudi's precombine key), so a late older version never
    overwrites a correction. -#}

{{ config(
    unique_key='event_id',
    precombine_key='event_version',
    partition_by='event_date',
) }}

with

ods_billing_events as (

    select * from {{ ref('ods_billing_events') }}
    {% if is_incremental() %}
        where batch_id > (
            select coalesce(max(loaded.batch_id), 0) as max_batch_id
            from {{ this }} as loaded
        )
    {% endif %}

),

final as (

    select
        event_id,
        event_version,
        account_id,
        event_type,
        billing_type,
        cost_micros,
        event_at,
        batch_id,
        to_date(event_at) as event_date
    from ods_billing_events

)

select * from final
