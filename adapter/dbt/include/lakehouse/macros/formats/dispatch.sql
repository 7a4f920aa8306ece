{#- Macros by table format. A format's macros are in formats/<format>/
    (the adapter's formats/<format>/ holds its Python), each named
    lakehouse_<format>__<name>; shared code calls
    lakehouse_format_macro(format, name)(...), which falls back to
    lakehouse_default__<name> (for a write, the shared path of the formats
    written by SQL MERGE: materializations/merge_write.sql). What a format
    may define: write_model, before_write, start_write, finish_write,
    start_recorded_write, finish_recorded_write, create_table,
    options_clause, check_snapshot_table, snapshot_write_sql,
    check_column_drop, and the table services of
    operations/table_services.sql (compact, compact_scheduled, clean,
    rollback). -#}

{#- The macro lakehouse_<fmt>__<name>, else lakehouse_default__<name>: as
    dbt's adapter.dispatch finds a macro by adapter, by format here; a
    project's macro of the same name is found first. -#}
{% macro lakehouse_format_macro(fmt, name) -%}
  {%- set found = context.get('lakehouse_' ~ fmt ~ '__' ~ name) or context.get('lakehouse_default__' ~ name) -%}
  {%- if found is none -%}
    {{ exceptions.raise_compiler_error("No macro lakehouse_" ~ fmt ~ "__" ~ name ~ " or lakehouse_default__" ~ name ~ ".") }}
  {%- endif -%}
  {{ return(found) }}
{%- endmacro %}
