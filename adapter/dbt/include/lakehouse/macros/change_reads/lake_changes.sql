{#- `from {{ lake_changes(ref('dwd_billing_events')) }} as changes`: only what the
    upstream Hudi table committed since this model last consumed it, exactly once.

    mode    latest_state (default): the latest version of each changed record
            (a late arrival, older by the upstream's precombine key than the
            stored version, changed nothing and is not read);
            cdc: one row per change with op, ts_ms and JSON before/after images
            (the upstream needs hoodie.table.cdc.enabled=true).
    on_gap  full (default): if the consumed instant is gone from the upstream's
            timeline (archived, rolled back), or, in cdc mode, the cleaner has
            removed files the range needs, read everything, with a warning;
            fail: stop with an error instead.

    The first run and --full-refresh read the whole table; the position read is
    recorded in the model's own commit (see the materialization). -#}
{% macro lake_changes(upstream, mode='latest_state', on_gap='full') -%}
  {%- if not execute -%}
    {{ return(upstream) }}
  {%- endif -%}
  {{ return(adapter.change_read_relation(lakehouse_plan_change_read(upstream, mode, on_gap))) }}
{%- endmacro %}


{#- Plans the read of `upstream` for this model (range, gap policy) and warns
    when a full read replaces an incremental one. In `dbt run` and `dbt build`,
    the materialization stages an incremental range that costs to read (cdc,
    or of a merge-on-read upstream) in a scratch table before the model's
    query runs; the others, and other commands, read the upstream directly. -#}
{% macro lakehouse_plan_change_read(upstream, mode, on_gap, signed=false) -%}
  {%- set stage = flags.WHICH in ['run', 'build'] -%}
  {%- set read = adapter.plan_change_read(model, this, upstream, mode, is_incremental(), on_gap, stage, signed) -%}
  {%- if read.note -%}
    {{ exceptions.warn(read.note) }}
  {%- endif -%}
  {{ return(read) }}
{%- endmacro %}


{#- Before the model's query: copies each incremental range it reads into its
    scratch table (one read of the upstream) and logs range and rows. -#}
{% macro lakehouse_stage_change_reads() -%}
  {%- for read in adapter.change_reads(model) -%}
    {%- if read.staged_as -%}
      {%- do lakehouse_create_scratch_table(lakehouse_scratch_relation(read), 'select * from ' ~ adapter.change_read_source(read) ~ ' as changes') -%}
    {%- endif -%}
    {%- set rows = 0 if read.is_empty else run_query('select count(*) from ' ~ adapter.change_read_relation(read) ~ ' as changes').rows[0][0] -%}
    {{ log(model.name ~ ": read " ~ read.describe() ~ ": " ~ rows ~ " rows", info=true) }}
  {%- endfor -%}
{%- endmacro %}


{#- After the write: the scratch tables and Iceberg changelog views of the ranges. -#}
{% macro lakehouse_drop_change_reads() -%}
  {%- for read in adapter.change_reads(model) if read.staged_as -%}
    {%- do lakehouse_drop_scratch_table(lakehouse_scratch_relation(read)) -%}
  {%- endfor -%}
  {%- for read in adapter.change_reads(model) if read.changelog_view -%}
    {%- call statement('drop_changelog_view', auto_begin=False) -%}
      drop view if exists {{ read.changelog_view }}
    {%- endcall -%}
  {%- endfor -%}
{%- endmacro %}


{#- (A read staged in memory is a temporary view: a name without a schema.) -#}
{% macro lakehouse_scratch_relation(read) -%}
  {%- set parts = read.staged_as.split('.') -%}
  {%- set schema = parts[0] if parts | length == 2 else none -%}
  {#- (In the session catalog, whatever the model's catalog: a scratch table is parquet.) -#}
  {{ return(this.incorporate(path={'database': none, 'schema': schema, 'identifier': parts[-1]}, type='table' if schema else 'view')) }}
{%- endmacro %}


{#- `from {{ lake_changed_keys(ref('dwd_billing_events'), ['event_date', 'account_id']) }}`:
    the distinct group keys touched since this model's last run, taken from the
    upstream's CDC before and after images (so deletes and records that moved to
    another group count for their old group too). An aggregate recomputes just
    those groups from the upstream and stays equal to a full recompute; give it
    a delete_condition for groups left empty. The upstream needs
    hoodie.table.cdc.enabled=true; the first run takes every key. -#}
{% macro lake_changed_keys(upstream, keys, on_gap='full') -%}
  {%- if not execute -%}
    {{ return(upstream) }}
  {%- endif -%}
  {%- set read = lakehouse_plan_change_read(upstream, 'cdc', on_gap) -%}
  {{ return(adapter.changed_keys_sql(read, keys)) }}
{%- endmacro %}


{#- `from {{ lake_signed_changes(ref('dwd_billing_events'), ['event_date', 'account_id', 'cost_micros']) }}`:
    the upstream's changes since this model's last run as rows of `columns`
    with a `_sign`: +1 for each new or updated record's new values, -1 for each
    updated or deleted record's old values. For additive measures (sums,
    counts) an aggregate adds `sum(_sign * measure)` per group to its stored
    row, reading nothing but the changes and its own touched rows:

        select d.k, coalesce(t.spend, 0) + d.spend as spend ...
        from deltas as d left join {{ this }} as t on ...

    The first run and --full-refresh read the snapshot, all +1. A gap (the
    consumed instant archived, or its files cleaned) is always an error that
    says to --full-refresh: deltas of a full read would count twice. Groups
    whose changes cancel out keep a row of zeros (a delete_condition is
    refused: its second commit could make a rerun apply the deltas twice).
    Needs hoodie.table.cdc.enabled=true upstream. For other measures (min,
    max, distinct counts) recompute the touched groups with lake_changed_keys. -#}
{% macro lake_signed_changes(upstream, columns) -%}
  {%- if not execute -%}
    {{ return(upstream) }}
  {%- endif -%}
  {%- set read = lakehouse_plan_change_read(upstream, 'cdc', 'fail', signed=true) -%}
  {{ return(adapter.signed_changes_sql(read, columns)) }}
{%- endmacro %}
