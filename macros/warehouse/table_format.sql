{#- The table format the warehouse's models are built in: Hudi's by default,
    Iceberg's or Delta's with `--vars '{table_format: iceberg}'` (or delta).
    dbt_project.yml's +file_format reads the same var. A command-line var
    only: dbt_project.yml's configs do not see the project's own vars. -#}
{% macro warehouse_table_format() -%}
    {{ return(var('table_format', 'hudi')) }}
{%- endmacro %}

{#- `settings` on Hudi; none on the other formats, where Hudi's own settings
    mean nothing (the adapter refuses them there, naming the config). -#}
{% macro on_hudi(settings) -%}
    {{ return(settings if warehouse_table_format() == 'hudi' else none) }}
{%- endmacro %}
