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
