{#- Snapshots on Hudi (the default format) and Iceberg; other formats keep
    dbt-spark's.

    Every version of a source row is its own Hudi record, keyed by the
    version's scd id. dbt-spark made the snapshot's unique_key the record key
    (primaryKey), so each new version replaced the one before and the history
    was lost.

    dbt-core's strategies and staging query are reused as they are. What a run
    writes is staged in scratch parquet tables (like every other write here),
    so the write never reads the snapshot through a query that the write
    itself changes. On Iceberg the same batch is one MERGE on the scd id. -#}

{% materialization snapshot, adapter='lakehouse' %}
  {%- set fmt = lakehouse_file_format() -%}
  {%- if fmt not in adapter.table_formats() -%}
    {{ return(materialization_snapshot_spark()) }}
  {%- endif -%}
  {%- set columns = config.get('snapshot_table_column_names') or get_snapshot_table_column_names() -%}
  {%- set lake = lakehouse_snapshot_lake_config(columns.dbt_scd_id, fmt) -%}
  {%- set exists, target_relation = get_or_create_relation(
      database=this.database, schema=model.schema, identifier=model.alias, type='table') -%}
  {%- if not target_relation.is_table -%}
    {%- do exceptions.relation_wrong_type(target_relation, 'table') -%}
  {%- endif -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {%- set strategy_macro = strategy_dispatch(config.get('strategy')) -%}
  {%- set strategy = strategy_macro(model, 'snapshotted_data', 'source_data', model['config'], exists) -%}
  {%- set batch = adapter.scratch_relation(target_relation, 'batch') -%}
  {%- set source_sql = lakehouse_without_hudi_meta_columns(sql) -%}

  {%- if not exists -%}
    {%- do lakehouse_create_scratch_table(batch, build_snapshot_table(strategy, source_sql)) -%}
    {%- set staged = adapter.get_columns_in_relation(batch) -%}
    {%- do lake.check_columns(staged | map(attribute='name') | list) -%}
    {%- do lakehouse_clear_killed_create(target_relation, replaces=false) -%}
    {%- call statement('create_table') -%}
      {{ lakehouse_format_macro(fmt, 'create_table')(target_relation, staged, lake) }}
    {%- endcall -%}
    {%- set changed = true -%}
  {%- else -%}
    {%- do adapter.assert_valid_snapshot_target_given_strategy(target_relation, columns, strategy) -%}
    {%- do lakehouse_format_macro(fmt, 'check_snapshot_table')(target_relation, lake) -%}
    {%- set staging = adapter.scratch_relation(target_relation, 'staging') -%}
    {%- do lakehouse_create_scratch_table(staging, snapshot_staging_table(strategy, source_sql, target_relation)) -%}
    {%- set missing = adapter.get_missing_columns(staging, target_relation)
        | rejectattr('name', 'in', lakehouse_snapshot_helper_columns()) | list -%}
    {%- do create_columns(target_relation, missing) -%}
    {%- do lakehouse_create_scratch_table(batch, lakehouse_snapshot_changes_sql(target_relation, staging, columns)) -%}
    {%- do lakehouse_drop_scratch_table(staging) -%}
    {#- No change since the last run: write nothing, so no empty commit. -#}
    {%- set changed = not lakehouse_is_empty(batch) -%}
  {%- endif -%}

  {%- if not changed -%}
    {{ log("Snapshot " ~ model.name ~ ": no changes, no commit written.", info=true) }}
    {%- call statement('main') -%}
      select 0 as rows_written
    {%- endcall -%}
  {%- else -%}
    {#- Upsert by scd id: a closed version replaces its stored record, a new
        version is a new record. -#}
    {%- do lakehouse_format_macro(fmt, 'start_write')(lake, 'upsert') -%}
    {%- call statement('main') -%}
      {{ lakehouse_format_macro(fmt, 'snapshot_write_sql')(target_relation, batch, columns.dbt_scd_id) }}
    {%- endcall -%}
    {%- do lakehouse_format_macro(fmt, 'finish_write')() -%}
  {%- endif -%}
  {%- do lakehouse_drop_scratch_table(batch) -%}

  {%- do apply_grants(target_relation, config.get('grants'), should_revoke=should_revoke(exists, full_refresh_mode=False)) -%}
  {%- do persist_docs(target_relation, model) -%}
  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{#- The snapshot's lake configs (Hudi's, or Iceberg's or Delta's). Its
    unique_key names the source rows it tracks, but the adapter's config
    parsers read the record key from `unique_key`, so
    it is given a copy of the config with the scd id column there instead
    (relation_configs stays the one parser of lake settings). -#}
{% macro lakehouse_snapshot_lake_config(scd_id, fmt='hudi') -%}
  {%- set not_for_snapshots = {
      'precombine_key': 'a version is written once and only its end date changes after',
      'partition_by': 'the row that closes a version carries the source row\'s current values, so a changed partition value would send the closing write to another partition',
      'delete_condition': 'use the snapshot config hard_deletes (ignore, invalidate or new_record)',
  } -%}
  {%- for key, why in not_for_snapshots.items() if config.get(key) is not none -%}
    {{ exceptions.raise_compiler_error(
        "Snapshot '" ~ model.name ~ "': `" ~ key ~ "` is not supported on a lake snapshot (" ~ why ~ ").") }}
  {%- endfor -%}
  {%- set snapshot_config = model.config.copy() -%}
  {%- do snapshot_config.update({'unique_key': scd_id, 'file_format': fmt}) -%}
  {%- set node = {'name': model.name, 'config': snapshot_config} -%}
  {{ return(adapter.table_config(node)) }}
{%- endmacro %}


{#- Columns of dbt's staging query that are bookkeeping, not snapshot columns. -#}
{% macro lakehouse_snapshot_helper_columns() -%}
  {%- set names = ['dbt_change_type', 'dbt_unique_key'] -%}
  {%- set keys = config.get('unique_key') -%}
  {%- if keys is not string and keys is iterable -%}
    {%- for key in keys -%}
      {%- do names.append('dbt_unique_key_' ~ loop.index) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(names + (names | map('upper') | list)) }}
{%- endmacro %}


{#- The records a run writes, as whole rows in the table's layout: each version
    that ends (the stored row with its end date set) and each new version the
    table does not hold yet. Written as an upsert by scd id rather than dbt's
    MERGE, because Hudi's MERGE on a merge-on-read table refuses an update that
    takes any value from the target row, and closing a version must keep every
    stored column but the end date. Values are cast to the stored types (a
    delete ends a version at the run's timestamp even when updated_at is a date). -#}
{% macro lakehouse_snapshot_changes_sql(target, staging, columns) -%}
  {%- set dest_columns = adapter.get_columns_in_relation(target) -%}
  {%- set staged = adapter.get_columns_in_relation(staging) | map(attribute='name') | map('lower') | list -%}
  {%- set scd_id = columns.dbt_scd_id -%}
  {%- set valid_to = columns.dbt_valid_to -%}
  {%- set current = config.get('dbt_valid_to_current') -%}
  select
    {%- for col in dest_columns %}
    {% if col.name | lower == valid_to | lower -%}
      cast(staged.{{ col.quoted }} as {{ col.data_type }})
    {%- else -%}
      stored.{{ col.quoted }}
    {%- endif %} as {{ col.quoted }}{{ "," if not loop.last }}
    {%- endfor %}
  from {{ staging }} as staged
  inner join {{ target }} as stored
    on stored.{{ scd_id }} = staged.{{ scd_id }}
  where staged.dbt_change_type in ('update', 'delete')
    and (stored.{{ valid_to }} is null{% if current %} or stored.{{ valid_to }} = {{ current }}{% endif %})
  union all
  select
    {%- for col in dest_columns %}
    {% if col.name | lower in staged -%}
      cast(staged.{{ col.quoted }} as {{ col.data_type }})
    {%- else -%}
      cast(null as {{ col.data_type }})
    {%- endif %} as {{ col.quoted }}{{ "," if not loop.last }}
    {%- endfor %}
  from {{ staging }} as staged
  left anti join {{ target }} as stored
    on stored.{{ scd_id }} = staged.{{ scd_id }}
  where staged.dbt_change_type = 'insert'
{%- endmacro %}


{#- dbt-core's staging query for hard_deletes='new_record' takes the snapshot's
    column names from this macro, which should return columns; dbt-spark's
    returns the raw rows of DESCRIBE, so no name matched and each deletion
    record got NULL in every source column. (dbt-core calls it nowhere else.) -#}
{% macro lakehouse__get_columns_in_relation(relation) -%}
  {{ return(adapter.get_columns_in_relation(relation)) }}
{%- endmacro %}


{#- Hudi's per-record meta columns, which `select *` over a Hudi table returns
    and dbt-spark leaves out of a relation's columns. -#}
{% macro lakehouse_hudi_meta_columns() -%}
  {{ return(['_hoodie_commit_time', '_hoodie_commit_seqno', '_hoodie_record_key',
             '_hoodie_partition_path', '_hoodie_file_name', '_hoodie_operation']) }}
{%- endmacro %}

{#- A snapshot of `select * from <a Hudi table>` reads the source without its
    meta columns: they are no data of the rows, and dbt-core's staging query
    would otherwise union rows of different widths (its new_record branch lists
    the source's columns as the macro below returns them). -#}
{% macro lakehouse_without_hudi_meta_columns(sql) -%}
  {%- set names = default__get_columns_in_query(sql) -%}
  {%- set kept = names | reject('in', lakehouse_hudi_meta_columns()) | list -%}
  {%- if kept | length == names | length -%}
    {{ return(sql) }}
  {%- endif -%}
  {%- set projected -%}
    select {% for name in kept %}{{ adapter.quote(name) }}{{ ", " if not loop.last }}{% endfor %}
    from ({{ sql }}) as snapshot_source
  {%- endset -%}
  {{ return(projected) }}
{%- endmacro %}

{#- dbt-core's check strategy with check_cols='all' compares the columns of the
    snapshot's query with the snapshot table's; with Hudi's meta columns counted
    on the query side only, every row of every run looked changed. (dbt-core
    calls this macro for snapshots and for unit tests, whose inputs are
    fixtures, never Hudi tables.) -#}
{% macro lakehouse__get_columns_in_query(select_sql) -%}
  {{ return(default__get_columns_in_query(select_sql) | reject('in', lakehouse_hudi_meta_columns()) | list) }}
{%- endmacro %}


{#- A snapshot's write on a format written by SQL MERGE (the default of
    snapshot_write_sql): the batch's versions by scd id, a closed version
    replacing its stored row, a new one inserted. -#}
{% macro lakehouse_default__snapshot_write_sql(target, batch, scd_id) -%}
  {{ return(lakehouse_snapshot_merge_sql(target, batch, scd_id)) }}
{%- endmacro %}

{% macro lakehouse_snapshot_merge_sql(target, batch, scd_id) -%}
  merge into {{ target }} as dest
  using {{ batch }} as src
  on dest.{{ scd_id }} = src.{{ scd_id }}
  when matched then update set *
  when not matched then insert *
{%- endmacro %}
