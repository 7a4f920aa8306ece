{#- A condition on binaryFile's `landed` rows that lets an incremental run of a
    model reading a landed feed (`relation`, its source, such as
    source('landing', 'billing_events'): binaryFile.`<landing_dir>/<feed>`)
    open only the files it may not have read yet, so that a batch costs what
    landed since its last run, not the whole folder (which grows with every
    batch).

    One listing of the folder (path, length and modification time: Spark opens
    no file for these) is compared with the file_length and file_modified_at
    the model recorded for each file it ingested. Spark then opens only the
    files whose modification time is one of those of the files not recorded
    with that length and time (it checks the time before it opens a file; past
    200 such times, the earliest of them is the bound instead). This only saves
    reading; what is ingested is still decided by landed_lines (path and
    content hash), so:

    - a file landed late, under an old time, is read;
    - a file touched with no change in its bytes is opened and hashed again on
      each run (its new time is never recorded), and skipped;
    - an empty file is left out of the listing (it has no lines, so it never
      gets a row that would record it).

    Returns 'true' (read everything) on a first run and for a model whose table
    has no file_modified_at column (it does not record the listing, or was
    created before these columns: on_schema_change adds them with that run;
    its older rows then count as recorded by their path alone), and 'false'
    when nothing is new. -#}

{% macro landed_files_to_read(relation) -%}
    {%- if not execute or not is_incremental() -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set recorded_columns = adapter.get_columns_in_relation(this) | map(attribute='name') | list -%}
    {%- if 'file_modified_at' not in recorded_columns -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set listing -%}
        select distinct unix_millis(landed.modificationTime) as modified_ms
        from {{ relation }} as landed
        left anti join (
            select distinct
                recorded.source_file,
                recorded.file_length,
                recorded.file_modified_at
            from {{ this }} as recorded
        ) as recorded
            on
                landed.path = recorded.source_file
                and (
                    recorded.file_modified_at is null
                    or (
                        landed.length = recorded.file_length
                        and landed.modificationTime = recorded.file_modified_at
                    )
                )
        where landed.length > 0
        order by modified_ms
    {%- endset -%}
    {%- set times = run_query(listing).columns[0].values() | map('int') | list -%}
    {%- if times | length == 0 -%}
        {{ return('false') }}
    {%- elif times | length > 200 -%}
        {{ return('landed.modificationTime >= timestamp_millis(' ~ times[0] ~ ')') }}
    {%- endif -%}
    {%- set matches = [] -%}
    {%- for millis in times -%}
        {%- do matches.append('landed.modificationTime = timestamp_millis(' ~ millis ~ ')') -%}
    {%- endfor -%}
    {{ return('(' ~ matches | join(' or ') ~ ')') }}
{%- endmacro %}
