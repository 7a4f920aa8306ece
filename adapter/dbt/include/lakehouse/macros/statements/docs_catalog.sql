{#- What `dbt docs generate` asks of each schema and table beyond its
    description (docs/catalog.py turns the rows into the catalog's stats).
    Define a macro of the same name in your project to change one; a
    statement macro gets its arguments only. -#}

{% macro lakehouse__show_tables(schema) -%}
show tables in {{ schema }}
{%- endmacro %}

{% macro lakehouse__count_rows(relation) -%}
select count(*) from {{ relation }}
{%- endmacro %}

{#- Files, bytes and the newest modification time of a binaryFile source. -#}
{% macro lakehouse__binary_files_stats(relation) -%}
select count(*), coalesce(sum(length), 0), max(modificationTime) from {{ relation }}
{%- endmacro %}

