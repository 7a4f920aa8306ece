{#- A view, as on dbt-spark. A model of a format whose tables are in a
    catalog of their own (Iceberg's) has its view in the session catalog: a
    model switched from table to view drops its table there, as dbt replaces
    a relation within one catalog (merge_write.sql does the reverse). -#}
{% materialization view, adapter='lakehouse' -%}
  {%- set catalog = adapter.table_format_catalog(config.get('file_format')) -%}
  {%- if catalog -%}
    {%- set table = adapter.get_relation(catalog, this.schema, this.identifier) -%}
    {%- if table is not none -%}
      {%- do adapter.drop_relation(table) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(create_or_replace_view()) }}
{%- endmaterialization %}
