{#- dbt's microbatch strategy: each batch replaces exactly the rows of its
    event_time window [start, end), partitioned table or not. The window's stored
    rows are deleted first (a commit of their own, only if there are any), then
    the batch is written as an upsert: on a keyed table a key stored outside the
    window is replaced, so keys stay unique; on a keyless table Hudi makes a key
    per row, so it inserts.

    Deleting first is what makes the window exact: rows gone from the window's
    source are gone from the table, and a batch row lands even where its
    precombine value is smaller than the stored one's. A run killed between the
    two commits leaves the window empty until that batch runs again (a later
    run inside `lookback`, `dbt retry`, or `--event-time-start/--event-time-end`).
    An empty batch still empties its window, and writes nothing else. -#}
{% macro lakehouse__get_incremental_microbatch_sql(arg_dict) -%}
  {%- set target = arg_dict['target_relation'] -%}
  {%- set window = lakehouse_microbatch_window() -%}
  {%- if run_query('select 1 from ' ~ target ~ ' where ' ~ window ~ ' limit 1').rows | length > 0 -%}
    {%- call statement('microbatch_window_delete') -%}
      delete from {{ target }} where {{ window }}
    {%- endcall -%}
  {%- endif -%}
  {%- if lakehouse_is_empty(arg_dict['temp_relation']) -%}
    select 0 as rows_written
  {%- else -%}
    {{ lakehouse_insert_select(arg_dict, 'microbatch') }}
  {%- endif -%}
{%- endmacro %}

{#- The batch's window over the model's event_time column, bounded the way dbt
    bounds the batch's input (start inclusive, end exclusive), with the bounds
    read as instants (they carry their UTC offset). -#}
{% macro lakehouse_microbatch_window() -%}
  {%- set batch = model.batch or {} -%}
  {%- if not (model.config.event_time and batch.event_time_start and batch.event_time_end) -%}
    {{ exceptions.raise_compiler_error(
        "Model '" ~ model.name ~ "': the microbatch strategy needs event_time and a batch window; "
        ~ "dbt provides the window when it runs the model batch by batch (dbt run / dbt build).") }}
  {%- endif -%}
  {{ model.config.event_time }} >= cast('{{ batch.event_time_start }}' as timestamp)
  and {{ model.config.event_time }} < cast('{{ batch.event_time_end }}' as timestamp)
{%- endmacro %}
