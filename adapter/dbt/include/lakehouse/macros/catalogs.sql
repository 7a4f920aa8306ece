{#- Every model's table is in the session catalog, whatever its format (the
    adapter's formats/registry.py says how): its dbt database is none, as on
    dbt-spark. Only an Iceberg table may be kept in another catalog, one the
    model names in `database` (an Iceberg catalog of the profile's
    spark_conf): `catalog.schema.table`. -#}
{% macro lakehouse__generate_database_name(custom_database_name=none, node=none) -%}
  {#- (A view or an ephemeral model is no table of the format, whatever
      file_format a folder or the project sets: the session catalog's.) -#}
  {%- set writes_table = node is not none and node.config.get('materialized') not in ('view', 'ephemeral') -%}
  {%- if custom_database_name and writes_table and node.config.get('file_format') in adapter.formats_with_own_catalog() -%}
    {{ return(custom_database_name) }}
  {%- endif -%}
  {{ return(spark__generate_database_name(custom_database_name, node)) }}
{%- endmacro %}


{#- The schemas of a catalog: the session catalog's databases, or another
    catalog's namespaces. -#}
{% macro lakehouse__list_schemas(database) -%}
  {% call statement('list_schemas', fetch_result=True, auto_begin=False) %}
    {%- if database %}
    show namespaces in {{ database }}
    {%- else %}
    show databases
    {%- endif %}
  {% endcall %}
  {{ return(load_result('list_schemas').table) }}
{%- endmacro %}
