{#- Delta's part of the MERGE write path (materializations/merge_write.sql):
    an incremental write carries what it consumed in its commit's user
    metadata (the adapter's formats/delta/history.py reads it). -#}

{% macro lakehouse_delta__start_recorded_write(relation, table_props, record) -%}
  {%- do lakehouse_delta_user_metadata(record) -%}
{%- endmacro %}

{% macro lakehouse_delta__finish_recorded_write(relation, record) -%}
  {%- if record -%}
    {%- do lakehouse_delta_user_metadata(none) -%}
  {%- endif -%}
{%- endmacro %}

{#- The next commits of this session to a Delta table carry `record` in
    their commit info's userMetadata (none: nothing). Quoted as the WAP id is. -#}
{% macro lakehouse_delta_user_metadata(record) -%}
  {%- call statement('delta_user_metadata', auto_begin=False) -%}
    {%- if record %}
    set `spark.databricks.delta.commitInfo.userMetadata` = `{{ record }}`
    {%- else %}
    reset spark.databricks.delta.commitInfo.userMetadata
    {%- endif %}
  {%- endcall -%}
{%- endmacro %}


{#- A Delta model's table records its change data feed (its readers' change
    reads), and Delta drops a column only under column mapping, which then
    blocks both the table's CREATE OR REPLACE (a full refresh) and change
    reads across the drop: so the drop is refused, and a full refresh, which
    rebuilds the table in the model's new columns, is the way. -#}
{% macro lakehouse_delta__check_column_drop(relation, remove_columns) -%}
  {{ exceptions.raise_compiler_error(
      "Model " ~ model.name ~ " (file_format: delta, on_schema_change: "
      ~ config.get('on_schema_change') ~ ") would drop the column(s) "
      ~ (remove_columns | map(attribute='name') | join(', ')) ~ " from " ~ relation
      ~ ". A Delta table drops a column only under column mapping, which blocks its "
      ~ "rebuilds and its change data feed across the drop. Run the model with "
      ~ "--full-refresh to rebuild it without them, or use on_schema_change: "
      ~ "append_new_columns to keep them.") }}
{%- endmacro %}
