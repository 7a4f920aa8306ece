{#- Every line of every landed billing-event file as it arrived, each file
    exactly once (landed_lines), parsed and checked: the typed fields and, for
    a line that cannot be billed, the reason. Nothing is dropped here; the
    valid lines go on to ods_billing_events and the others to
    ods_billing_events_quarantine, each by incremental commit reads of this
    table. Unknown accounts are checked against every account the account
    feed has ever inserted, this batch included (its changes land first). -#}

{%- set required = ['event_id', 'event_version', 'event_type', 'event_time', 'account_id',
                    'campaign_id', 'ad_id', 'media_id', 'billing_type', 'cost_micros'] %}

with

landed as (

    select * from {{ landed_lines('billing_events') }} as landed

),

known_accounts as (

    select distinct account_changes.account_id
    from {{ ref('ods_account_changes') }} as account_changes

),

parsed as (

    select
        landed.raw_line,
        landed.source_file,
        landed.landed_batch,
        json_object_keys(landed.raw_line) as json_keys,
        from_json(
            landed.raw_line,
            'event_id string, event_version int, event_type string, event_time string, '
            || 'account_id bigint, campaign_id bigint, ad_id bigint, media_id bigint, '
            || 'billing_type string, cost_micros bigint'
        ) as event
    from landed

),

final as (

    select
        parsed.raw_line,
        parsed.source_file,
        parsed.landed_batch,
        parsed.event.event_id,
        parsed.event.event_version,
        parsed.event.event_type,
        to_timestamp(parsed.event.event_time) as event_time,
        parsed.event.account_id,
        parsed.event.campaign_id,
        parsed.event.ad_id,
        parsed.event.media_id,
        parsed.event.billing_type,
        parsed.event.cost_micros,
        case
            when parsed.json_keys is null then 'broken_json'
            when size(array_except(
                array(
                    {%- for key in required %}
                        '{{ key }}'{{ ',' if not loop.last }}
                    {%- endfor %}
                ),
                parsed.json_keys
            )) > 0 then 'missing_key'
            {%- for key in required %}
                when parsed.event.{{ key }} is null then 'bad_value'
            {%- endfor %}
            when to_timestamp(parsed.event.event_time) is null then 'bad_value'
            when parsed.event.event_type not in ('impression', 'click', 'conversion')
                then 'bad_value'
            when parsed.event.billing_type not in ('CPC', 'CPM', 'oCPM')
                then 'bad_value'
            when parsed.event.cost_micros < 0 then 'negative_cost'
            when known_accounts.account_id is null then 'unknown_account'
        end as quarantine_reason,
        current_timestamp() as ingested_at
    from parsed
    left join known_accounts
        on parsed.event.account_id = known_accounts.account_id

)

select * from final
