{#- One row per billing event, its current version: merge-on-read, upserted by
    event_id with event_version as the precombine key, so the highest version
    wins whatever order versions land in (a stale older version never
    overwrites a correction, and a duplicate changes no figure: the row of the
    later landing stays). Reads only the ODS rows committed since its last
    run. CDC is on, with before and after
    images, so DWS can add each change's delta exactly once (Hudi's CDC and
    archiving settings apply on Hudi only: Iceberg's and Delta's change reads
    need no setting). On Iceberg the table is copy-on-write: Iceberg's
    changelog scan cannot read a snapshot with delete files, which its
    merge-on-read updates write (the adapter refuses such a change read). -#}

{%- set merge_on_read = warehouse_table_format() != 'iceberg' %}

{{ config(
    table_type='mor' if merge_on_read else 'cow',
    unique_key='event_id',
    precombine_key='event_version',
    partition_by='event_date',
    compaction={
        'trigger': 'num_or_time',
        'delta_commits': var('dwd_compaction_delta_commits'),
        'delta_seconds': 3600,
        'mode': var('dwd_compaction_mode'),
    } if merge_on_read else none,
    cleaning={'policy': 'keep_latest_commits', 'retain': var('dwd_cleaning_retain')},
    hudi_options=on_hudi({
        'hoodie.table.cdc.enabled': true,
        'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER',
        'hoodie.keep.min.commits': var('dwd_archive_min_commits'),
        'hoodie.keep.max.commits': var('dwd_archive_max_commits'),
    }),
) }}

with

new_events as (

    select * from {{ lake_changes(ref('ods_billing_events')) }} as upstream_changes

),

media as (

    select * from {{ ref('ods_media') }}

),

final as (

    select
        new_events.event_id,
        new_events.event_version,
        new_events.event_type,
        new_events.event_time,
        new_events.account_id,
        new_events.campaign_id,
        new_events.ad_id,
        new_events.media_id,
        media.media_name,
        media.media_type,
        new_events.billing_type,
        new_events.cost_micros,
        new_events.landed_batch,
        hour(new_events.event_time) as event_hour,
        to_date(new_events.event_time) as event_date
    from new_events
    left join media
        on new_events.media_id = media.media_id

)

select * from final
