{#- What the adapter runs when a table about to be created finds its folder
    holding what a killed create left (writes/killed_creates.py). A statement macro
    gets its arguments only. -#}

{#- The paths a Hadoop glob pattern matches, through the session's file
    system (local, a bucket, HDFS): rows with storage_path, none for no match. -#}
{% macro lakehouse__list_paths(pattern) -%}
call show_fs_path_detail(path => '{{ pattern | replace("'", "\\'") }}')
{%- endmacro %}

{#- Removing a folder with SQL alone, on every method and store: a managed
    table's folder goes with the table, so an empty managed table is made,
    pointed at the folder, and dropped. Its own empty folder then goes the
    same way (Spark takes an empty folder for a new managed table). -#}
{% macro lakehouse__create_placeholder(table) -%}
create table {{ table }} (placeholder int) using parquet
{%- endmacro %}

{% macro lakehouse__point_placeholder(table, location) -%}
alter table {{ table }} set location '{{ location | replace("'", "\\'") }}'
{%- endmacro %}

{% macro lakehouse__drop_placeholder(table) -%}
drop table if exists {{ table }}
{%- endmacro %}

