{#- Every line of every landed billing-event file as it arrived, each delivery
    exactly once (landed_lines), parsed and checked: the typed fields and, for
    a line that cannot be billed now, the reason. Nothing is dropped here; the
    valid lines go on to ods_billing_events, the unknown_account ones to
    ods_billing_events_held (until their account lands) and the others to
    ods_billing_events_quarantine, each by incremental commit reads of this
    table. The reasons, first match wins, are listed in _ods__models.yml. -#}

{%- set text_keys = ['event_id', 'event_type', 'event_time', 'billing_type'] %}
{%- set number_keys = ['event_version', 'account_id', 'campaign_id', 'ad_id', 'media_id', 'cost_micros'] %}
{%- set value_keys, value_starts = 'parsed.json_value_keys', 'parsed.json_value_starts' %}
{#- The landed feed (its source), listed once: both reads below open the same
    files. With no new file the model is not run (skip_unchanged). #}
{%- set landed_feed = source('landing', 'billing_events') %}
{%- set files_to_read = landed_files_to_read_or_skip(landed_feed) %}

{#- Each batch in new files (dbt_project.yml says why). #}
{{ config(file_sizing=on_hudi({'small_file_mb': 0})) }}

with

landed as (

    select * from {{ landed_lines(landed_feed, files_to_read) }} as landed

),

{#- A file whose bytes equal a file already ingested, or another file of this
    run with a smaller path, is the same delivery under another name. The
    files are looked at as files, not as the lines of `landed`: Spark would
    split, explode and match every line against the table a second time (a
    CTE used twice is computed twice). A file this model already holds may be
    among them (opened again after a touch); its lines are not in `landed`,
    and it marks a new file with its bytes just as ingested_files does. #}

files as (

    select * from {{ landed_files(landed_feed, files_to_read, skip_ingested=false) }} as files

),

ingested_files as (

    {% if is_incremental() -%}
        select distinct file_sha256 from {{ this }}
    {%- else -%}
        select cast(null as string) as file_sha256
        where false
    {%- endif %}

),

account_states as (

    select * from {{ account_states() }} as account_states

),

new_files as (

    select
        files.source_file,
        files.file_sha256,
        min(files.source_file) over (partition by files.file_sha256) as first_source_file
    from files

),

duplicate_files as (

    select new_files.source_file
    from new_files
    left join ingested_files
        on new_files.file_sha256 = ingested_files.file_sha256
    where
        ingested_files.file_sha256 is not null
        or new_files.source_file != new_files.first_source_file

),

{#- The duplicate files are a few rows: broadcast, so that each landed
    file's lines are parsed where they were read, not shuffled by file name
    into one task (see landed_files). #}

parsed as (

    select /*+ broadcast(duplicate_files) */
        landed.raw_line,
        landed.source_file,
        landed.line_number,
        landed.file_sha256,
        landed.file_length,
        landed.file_modified_at,
        landed.landed_batch,
        duplicate_files.source_file is not null as is_duplicate_file,
        json_object_keys(landed.raw_line) as json_keys,
        {{ json_value_starts('landed.raw_line', 'keys') }} as json_value_keys,
        {{ json_value_starts('landed.raw_line', 'starts') }} as json_value_starts,
        from_json(
            landed.raw_line,
            'event_id string, event_version int, event_type string, event_time string, '
            || 'account_id bigint, campaign_id bigint, ad_id bigint, media_id bigint, '
            || 'billing_type string, cost_micros bigint'
        ) as event,
        current_timestamp() as ingested_at
    from landed
    left join duplicate_files
        on landed.source_file = duplicate_files.source_file

),

final as (

    select
        parsed.raw_line,
        parsed.source_file,
        parsed.line_number,
        parsed.file_sha256,
        parsed.file_length,
        parsed.file_modified_at,
        concat(
            parsed.source_file, '@', substr(parsed.file_sha256, 1, 12), ':', parsed.line_number
        ) as line_id,
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
            when parsed.is_duplicate_file then 'duplicate_file'
            when parsed.json_keys is null then 'broken_json'
            when instr(parsed.raw_line, '\uFFFD') > 0 then 'bad_encoding'
            when size(array_except(
                array(
                    {%- for key in text_keys + number_keys %}
                        '{{ key }}'{{ ',' if not loop.last }}
                    {%- endfor %}
                ),
                parsed.json_keys
            )) > 0 then 'missing_key'
            {%- for key in text_keys %}
                when {{ json_is_wrong_type(value_keys, value_starts, key, 'string') }}
                    then 'wrong_type'
            {%- endfor %}
            {%- for key in number_keys %}
                when {{ json_is_wrong_type(value_keys, value_starts, key, 'number') }}
                    then 'wrong_type'
            {%- endfor %}
            {%- for key in text_keys + number_keys %}
                when parsed.event.{{ key }} is null then 'bad_value'
            {%- endfor %}
            when to_timestamp(parsed.event.event_time) is null then 'bad_value'
            when parsed.event.event_type not in ('impression', 'click', 'conversion')
                then 'bad_value'
            when parsed.event.billing_type not in ('CPC', 'CPM', 'oCPM')
                then 'bad_value'
            when parsed.event.cost_micros < 0 then 'negative_cost'
            when
                parsed.event.cost_micros > {{ var('max_event_cost_micros') }}
                then 'cost_out_of_range'
            when
                to_timestamp(parsed.event.event_time) < timestamp '{{ var("earliest_event_time") }}'
                or to_timestamp(parsed.event.event_time) > parsed.ingested_at + interval 1 day
                then 'time_out_of_range'
            else {{ account_reason('account_states', 'to_timestamp(parsed.event.event_time)') }}
        end as quarantine_reason,
        parsed.ingested_at
    from parsed
    left join account_states
        on parsed.event.account_id = account_states.account_id

)

select * from final
