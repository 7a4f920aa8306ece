{#- The lines of a landed feed's files, each file read once.

    `from {{ landed_lines('billing_events') }} as landed` reads every file under
    <landing_dir>/<feed>/ as text: one row per line, with the file it came from
    and the landing batch (its `batch=NNNNNN` folder). Incrementally, the files
    whose lines this model already holds are skipped: a file is ingested in the
    same Hudi commit that records it, so a rerun, or a run killed before its
    commit, never ingests a file twice and never skips one. Producers land a
    file under a name starting with `.` or `_` and rename it when complete
    (Spark ignores such names), so a half-written file is never read. -#}

{% macro landed_lines(feed) -%}
(
    select
        landed.value as raw_line,
        landed._metadata.file_path as source_file,
        cast(regexp_extract(landed._metadata.file_path, 'batch=([0-9]+)', 1) as int) as landed_batch
    from text.`{{ var('landing_dir') }}/{{ feed }}` as landed
    {%- if is_incremental() %}
        left anti join (select distinct ingested.source_file from {{ this }} as ingested) as ingested
            on landed._metadata.file_path = ingested.source_file
    {%- endif %}
)
{%- endmacro %}


{#- A landed dimension file (JSON lines), read once: its rows, typed by `schema`
    (a Spark DDL string), with the file they came from. -#}

{% macro landed_dimension(name, schema) -%}
(
    select
        parsed.row.*,
        parsed.source_file
    from (
        select
            from_json(raw_line, '{{ schema }}') as row,
            source_file
        from {{ landed_lines('dimensions') }} as lines
        where source_file like '%/{{ name }}.jsonl'
    ) as parsed
)
{%- endmacro %}
