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


{#- Source freshness from a loaded_at_field: the same UTC wall-clock times
    without a zone as above. dbt's default macro returns Spark's zoned
    timestamps, which reach dbt in the process's local zone and are then
    labelled UTC: off by the zone's offset on a machine not set to UTC (the
    age and the verdict stay right, the times shown do not). The field is
    read in the session's zone (a zoned timestamp's own instant, or a
    timestamp without a zone as a time there). -#}
{% macro lakehouse__collect_freshness(source, loaded_at_field, filter) -%}
  {%- call statement('collect_freshness', fetch_result=True, auto_begin=False) -%}
    select
      convert_timezone('UTC', cast(max({{ loaded_at_field }}) as timestamp_ntz)) as max_loaded_at,
      convert_timezone('UTC', localtimestamp()) as snapshotted_at
    from {{ source }}
    {%- if filter %}
    where {{ filter }}
    {%- endif %}
  {%- endcall -%}
  {{ return(load_result('collect_freshness')) }}
{%- endmacro %}
