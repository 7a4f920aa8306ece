{#- What `dbt docs generate` asks of each schema and table beyond its
    description (docs/catalog.py turns the rows into the catalog's stats).
    Define a macro of the same name in your project to change one; a
    statement macro gets its arguments only. -#}

{% macro lakehouse__show_tables(schema) -%}
show tables in {{ schema }}
{%- endmacro %}

{#- Compactions of a merge-on-read table (Hudi refuses them on copy-on-write). -#}
{% macro lakehouse__show_compaction(table) -%}
call show_compaction(table => '{{ table }}')
{%- endmacro %}

{#- The file groups of the latest file-system view. -#}
{% macro lakehouse__show_fsview_latest(table) -%}
call show_fsview_latest(table => '{{ table }}')
{%- endmacro %}

{#- Bytes under a folder: the table's files, timeline and metadata table. -#}
{% macro lakehouse__show_fs_path_detail(path) -%}
call show_fs_path_detail(path => '{{ path }}')
{%- endmacro %}

{% macro lakehouse__count_rows(relation) -%}
select count(*) from {{ relation }}
{%- endmacro %}

{#- Files, bytes and the newest modification time of a binaryFile source. -#}
{% macro lakehouse__binary_files_stats(relation) -%}
select count(*), coalesce(sum(length), 0), max(modificationTime) from {{ relation }}
{%- endmacro %}

{#- An Iceberg table's snapshots, newest first, with their summaries'
    totals (the docs catalog's stats of an Iceberg table). -#}
{% macro lakehouse__iceberg_snapshot_stats(table) -%}
select snapshot_id, operation, committed_at,
  summary['total-data-files'] as `total-data-files`,
  summary['total-delete-files'] as `total-delete-files`,
  summary['total-files-size'] as `total-files-size`,
  summary['total-records'] as `total-records`
from {{ table }}.snapshots
order by committed_at desc
{%- endmacro %}

{#- A Delta table's files and bytes now (one row: numFiles, sizeInBytes, ...). -#}
{% macro lakehouse__delta_detail(table) -%}
describe detail {{ table }}
{%- endmacro %}

{#- A Delta table's commits, newest first (version, timestamp, operation, ...). -#}
{% macro lakehouse__delta_history(table) -%}
describe history {{ table }}
{%- endmacro %}
