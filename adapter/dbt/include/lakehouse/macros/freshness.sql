{#- Source freshness without a loaded_at_field: when each table last changed,
    from its Hudi timeline (the latest completed instant's completion time),
    not from a column of its rows. Both times are UTC wall-clock times without
    a zone (timestamp_ntz), which reach dbt as they are, as dbt reads them: a
    zoned timestamp would be shifted into the dbt process's local zone. -#}
{% macro lakehouse__get_relation_last_modified(information_schema, relations) -%}
  {%- call statement('last_modified', fetch_result=True) -%}
    {%- for relation in relations %}
    {%- set changed = adapter.hudi_last_modified(relation) %}
    select
      '{{ relation.schema }}' as schema,
      '{{ relation.identifier }}' as identifier,
      {{ "timestamp_ntz '" ~ changed ~ "'" if changed else "cast(null as timestamp_ntz)" }} as last_modified,
      convert_timezone('UTC', localtimestamp()) as snapshotted_at
    {{ "union all" if not loop.last }}
    {%- endfor %}
  {%- endcall -%}
  {{ return(load_result('last_modified')) }}
{%- endmacro %}
