{#- `from {{ lake_changes(ref('dwd_billing_events')) }} as changes`: only what the
    upstream Hudi table committed since this model last consumed it, exactly once.

    mode    latest_state (default): the latest version of each changed record;
            cdc: one row per change with op, ts_ms and JSON before/after images
            (the upstream needs hoodie.table.cdc.enabled=true).
    on_gap  full (default): if the consumed instant is gone from the upstream's
            timeline (archived, rolled back), read everything, with a warning;
            fail: stop with an error instead.

    The first run and --full-refresh read the whole table; the position read is
    recorded in the model's own commit (see the materialization). -#}
{% macro lake_changes(upstream, mode='latest_state', on_gap='full') -%}
  {%- if not execute -%}
    {{ return(upstream) }}
  {%- endif -%}
  {%- set read = adapter.plan_change_read(model, this, upstream, mode, is_incremental(), on_gap) -%}
  {%- if read.note -%}
    {{ exceptions.warn(read.note) }}
  {%- endif -%}
  {{ return(read.sql()) }}
{%- endmacro %}


{#- Logs what each lake_changes() of the model read: range and rows. -#}
{% macro lakehouse_log_change_reads() -%}
  {%- for read in adapter.change_reads(model) -%}
    {%- set rows = 0 if read.is_empty else run_query('select count(*) from ' ~ read.sql() ~ ' as changes').rows[0][0] -%}
    {{ log(model.name ~ ": read " ~ read.describe() ~ ": " ~ rows ~ " rows", info=true) }}
  {%- endfor -%}
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
  {%- set read = adapter.plan_change_read(model, this, upstream, 'cdc', is_incremental(), on_gap) -%}
  {%- if read.note -%}
    {{ exceptions.warn(read.note) }}
  {%- endif -%}
  {{ return(adapter.changed_keys_sql(read, keys, upstream)) }}
{%- endmacro %}
