{#- Tables of a format kept in a Spark catalog of their own (Iceberg's, see
    the adapter's table_formats.py) have that catalog as their dbt database:
    `iceberg.schema.table` (or the catalog an Iceberg model names in
    `database`); other tables and views none, as on dbt-spark. -#}
{% macro lakehouse__generate_database_name(custom_database_name=none, node=none) -%}
  {#- (A view or an ephemeral model is no table of the format, whatever
      file_format a folder or the project sets: the session catalog's.) -#}
  {%- set writes_table = node is not none and node.config.get('materialized') not in ('view', 'ephemeral') -%}
  {%- set catalog = adapter.table_format_catalog(node.config.get('file_format')) if writes_table else none -%}
  {%- if catalog -%}
    {{ return(custom_database_name or catalog) }}
  {%- endif -%}
  {#- Else dbt-spark's: none, the session catalog, which Hudi's tables are in. -#}
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
