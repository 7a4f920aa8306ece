{#- The lines of a landed feed's files, each delivery read once.

    `from {{ landed_lines(source('landing', 'billing_events')) }} as landed`
    reads every file of a landed feed whole and gives one row per line: the
    text, the file it came from, its line number, the SHA-256 of the file's
    bytes, its length and modification time, and the landing batch (its
    `batch=NNNNNN` folder). `relation`: the feed's source (the landing source
    of models/sources/_landing__sources.yml), Spark's binaryFile view of the
    feed's folder or file; the model calls source() itself, so that dbt
    records what it reads.

    - Exactly once: incrementally, a file whose path and content hash this
      model already holds is skipped. A file goes in with the same Hudi commit
      that records it, so a rerun, or a run killed before its commit, never
      ingests a file twice and never skips one. A file rewritten in place with
      new content is a new delivery and is read again.
    - A batch's cost: incrementally, only files that may be new are opened
      (landed_files_to_read); a model that keeps the file_length and
      file_modified_at columns records what it has listed.
    - Bytes, not text: the file is decoded as UTF-8 here, so a byte that is not
      UTF-8 becomes U+FFFD in its line (the line is then quarantined as
      bad_encoding), and a byte-order mark at the start of a file, which some
      producers write, is dropped. Lines end at LF; a CR before it is dropped,
      and so is the empty piece after a final LF. An empty file has no lines.
    - Producers land a file under a name starting with `.` or `_` and rename
      it when complete (Spark ignores such names), so a half-written file is
      never read. -#}

{% macro landed_lines(relation, files_to_read=none) -%}
(
    select
        landed_files.source_file,
        landed_files.landed_batch,
        landed_files.file_sha256,
        landed_files.file_length,
        landed_files.file_modified_at,
        file_lines.line_index + 1 as line_number,
        regexp_replace(file_lines.line_text, '\r$', '') as raw_line
    from {{ landed_files(relation, files_to_read) }} as landed_files
    lateral view posexplode(split(regexp_replace(landed_files.file_text, '\n$', ''), '\n')) file_lines as line_index, line_text
    where landed_files.file_text != ''
)
{%- endmacro %}


{#- The files of a landed feed (`relation`, its source) that landed_lines
    reads, one row each: its path, landing batch, SHA-256, length,
    modification time and text.
    `files_to_read`: the condition of landed_files_to_read, when the model
    has it already (it lists the folder each time it is called).
    `skip_ingested=false` keeps the files this model already holds, for a
    look at the files alone (which bytes came under which names) that needs
    no scan of the table. -#}

{% macro landed_files(relation, files_to_read=none, skip_ingested=true) -%}
{#- The files already ingested are a small list (a row per file): broadcast
    it. Joined by path, a shuffle would put each landed file, and with it
    the parsing of all its lines in the models that read them, in one task:
    one core doing a batch's work while the other idles. #}
(
    select{{ ' /*+ broadcast(ingested) */' if is_incremental() and skip_ingested }}
        landed.path as source_file,
        cast(regexp_extract(landed.path, 'batch=([0-9]+)', 1) as int) as landed_batch,
        sha2(landed.content, 256) as file_sha256,
        landed.length as file_length,
        landed.modificationTime as file_modified_at,
        regexp_replace(decode(landed.content, 'UTF-8'), '^\uFEFF', '') as file_text
    from {{ relation }} as landed
    {%- if is_incremental() %}
        {%- if skip_ingested %}
            left anti join (
                select distinct
                    ingested.source_file,
                    ingested.file_sha256
                from {{ this }} as ingested
            ) as ingested
                on
                    landed.path = ingested.source_file
                    and sha2(landed.content, 256) = ingested.file_sha256
        {%- endif %}
        where {{ files_to_read if files_to_read is not none else landed_files_to_read(relation) }}
    {%- endif %}
)
{%- endmacro %}


{#- A landed dimension file (JSON lines; <landing_dir>/dimensions/<name>.jsonl,
    `relation` its source, e.g. source('landing', 'campaigns')), read once:
    its rows, typed by `schema` (a Spark DDL string), with the file they came
    from, its length and its modification time (so that the next run can
    tell from a listing that it has not changed: the model passes
    landed_files_to_read_or_skip(relation) as `files_to_read`). -#}

{% macro landed_dimension(relation, schema, files_to_read=none) -%}
(
    select
        parsed.row.*,
        parsed.source_file,
        parsed.file_sha256,
        parsed.file_length,
        parsed.file_modified_at
    from (
        select
            from_json(raw_line, '{{ schema }}') as row,
            source_file,
            file_sha256,
            file_length,
            file_modified_at
        from {{ landed_lines(relation, files_to_read) }} as lines
    ) as parsed
)
{%- endmacro %}


{#- landed_files_to_read for a model that reads only one landed feed
    (`relation`, its source): its condition on the landed files, for
    landed_lines, landed_files and landed_dimension. When it is 'false' (no
    file is new) the model also says it has nothing to read
    (lake_nothing_to_read), and with skip_unchanged it is then not run:
    no Spark work, no commit. The condition is the macro's output. -#}

{% macro landed_files_to_read_or_skip(relation) -%}
    {%- set files_to_read = landed_files_to_read(relation) -%}
    {%- if files_to_read == 'false' %}{% do lake_nothing_to_read() %}{% endif -%}
    {{- files_to_read -}}
{%- endmacro %}
