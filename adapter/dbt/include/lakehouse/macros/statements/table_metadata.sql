{#- What the adapter asks Spark and Hudi about a table: its timeline, the
    extra metadata of its commits, its catalog entry (lake/metadata.py parses
    the rows). Each statement is one macro; define a macro of the same name in
    your project to change it. A statement macro gets its arguments only (no
    adapter, var or ref): it is text built from them. -#}

{#- Completed writes and table services, newest instant first. -#}
{% macro lakehouse__show_commits(table, limit) -%}
call show_commits(table => '{{ table }}', limit => {{ limit }})
{%- endmacro %}

{% macro lakehouse__show_cleans(table, limit) -%}
call show_cleans(table => '{{ table }}', limit => {{ limit }})
{%- endmacro %}

{#- One commit's extra metadata: every key, or the one named. -#}
{% macro lakehouse__show_commit_extra_metadata(table, instant, key=none) -%}
call show_commit_extra_metadata(table => '{{ table }}', instant_time => '{{ instant }}',
{%- if key is none %} limit => 1000{% else %} metadata_key => '{{ key }}'{% endif %})
{%- endmacro %}

{% macro lakehouse__show_commit_partitions(table, instant) -%}
call show_commit_partitions(table => '{{ table }}', instant_time => '{{ instant }}')
{%- endmacro %}

{#- The instants of a timeline by its path (a table's metadata table). -#}
{% macro lakehouse__show_timeline(path, limit) -%}
call show_timeline(path => '{{ path }}', limit => {{ limit }})
{%- endmacro %}

{% macro lakehouse__delete_metadata_table(table) -%}
call delete_metadata_table(table => '{{ table }}')
{%- endmacro %}

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

{#- Hudi's own properties of a table (hoodie.properties), beside the catalog's. -#}
{% macro lakehouse__show_hudi_table_properties(table, limit) -%}
call show_table_properties(table => '{{ table }}', limit => {{ limit }})
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

{#- An Iceberg table's snapshots (table: catalog.schema.table), for its
    compaction and cleaning triggers (formats/iceberg/services.py). -#}
{% macro lakehouse__iceberg_snapshots(table) -%}
select committed_at, operation from {{ table }}.snapshots
{%- endmacro %}

{#- Spark's now, in the session's zone (not named current_timestamp: dbt
    dispatches its cross-database macro of that name to lakehouse__*). -#}
{% macro lakehouse__session_now() -%}
select current_timestamp()
{%- endmacro %}

{#- Iceberg's compaction: data files with delete files rewritten with the
    deletes applied (and small ones bin-packed), then the position delete
    files left dangling removed. `table` is schema.table in `catalog`. -#}
{% macro lakehouse__iceberg_rewrite_data_files(catalog, table) -%}
call {{ catalog }}.system.rewrite_data_files(table => '{{ table }}', options => map('delete-file-threshold', '1', 'remove-dangling-deletes', 'true'))
{%- endmacro %}

{% macro lakehouse__iceberg_rewrite_position_deletes(catalog, table) -%}
call {{ catalog }}.system.rewrite_position_delete_files(table => '{{ table }}')
{%- endmacro %}

{#- Iceberg's cleaning: the snapshots older than `older_than` expire, but the
    latest `retain_last`; files only they used are deleted. -#}
{% macro lakehouse__iceberg_expire_snapshots(catalog, table, older_than, retain_last) -%}
call {{ catalog }}.system.expire_snapshots(table => '{{ table }}', older_than => timestamp '{{ older_than }}', retain_last => {{ retain_last }})
{%- endmacro %}

{#- Iceberg's rollback: the table's current snapshot becomes an earlier one. -#}
{% macro lakehouse__iceberg_rollback(catalog, table, snapshot_id) -%}
call {{ catalog }}.system.rollback_to_snapshot(table => '{{ table }}', snapshot_id => {{ snapshot_id }})
{%- endmacro %}

{#- Delta's compaction: small files bin-packed... -#}
{% macro lakehouse__delta_optimize(table) -%}
optimize {{ table }}
{%- endmacro %}

{#- ...and files with deletion vectors rewritten with the deletes applied. -#}
{% macro lakehouse__delta_purge(table) -%}
reorg table {{ table }} apply (purge)
{%- endmacro %}

{#- Delta's cleaning: files no version of the last `hours` reads are deleted. -#}
{% macro lakehouse__delta_vacuum(table, hours) -%}
vacuum {{ table }} retain {{ hours }} hours
{%- endmacro %}

{#- Delta's rollback: the table's current version becomes a copy of an earlier one. -#}
{% macro lakehouse__delta_restore(table, version) -%}
restore table {{ table }} to version as of {{ version }}
{%- endmacro %}

{#- A Delta table's latest versions, newest first (version, operation, ...):
    enough to find the latest that changed data past VACUUM's and runs'
    property commits. -#}
{% macro lakehouse__delta_latest_versions(table) -%}
describe history {{ table }} limit 10
{%- endmacro %}
