{#- What the adapter asks Spark about a table, whatever its format: its
    catalog entry, its schema, the session's settings (lake/metadata.py parses
    the rows; a format's own questions, its timeline or snapshots, are in
    macros/formats/<format>/statements.sql). Each statement is one macro; define a macro of the same name in
    your project to change it. A statement macro gets its arguments only (no
    adapter, var or ref): it is text built from them. -#}

{% macro lakehouse__show_table_properties(table) -%}
show tblproperties {{ table }}
{%- endmacro %}

{#- Columns, partition columns and location (rows of name, value). -#}
{% macro lakehouse__describe_table(table) -%}
describe table extended {{ table }}
{%- endmacro %}

{% macro lakehouse__describe_schema(schema) -%}
describe schema extended {{ schema }}
{%- endmacro %}

{% macro lakehouse__has_rows(table) -%}
select 1 from {{ table }} limit 1
{%- endmacro %}

{#- The zone of the JVM that runs Spark: Hudi's instants are in it by default. -#}
{#- A Spark setting of the session (rows of key, value; `<undefined>` when unset). -#}
{% macro lakehouse__session_setting(key) -%}
set {{ key }}
{%- endmacro %}

{% macro lakehouse__jvm_time_zone() -%}
select reflect('java.time.ZoneId', 'systemDefault')
{%- endmacro %}

{#- The columns of a relation that is a query (a file source: json.`path`). -#}
{% macro lakehouse__describe_query(relation) -%}
describe query select * from {{ relation }}
{%- endmacro %}

{#- The tables of a schema of a catalog other than the session catalog
    (rows of namespace, tableName, isTemporary). -#}
{% macro lakehouse__show_catalog_tables(schema) -%}
show tables in {{ schema }}
{%- endmacro %}

{#- Spark's now, in the session's zone (not named current_timestamp: dbt
    dispatches its cross-database macro of that name to lakehouse__*). -#}
{% macro lakehouse__session_now() -%}
select current_timestamp()
{%- endmacro %}

