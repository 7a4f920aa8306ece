{#- The write path of the formats written by SQL MERGE (Iceberg's, Delta's:
    the default of lakehouse_format_macro, formats/dispatch.sql), shared by
    the `table` and `incremental` materializations. The configs mean what
    they mean on Hudi (the adapter's formats/config_support.py); the SQL is
    plain Spark SQL that both formats run: a keyed write is a MERGE whose
    batch keeps one row per key (the largest precombine_key; on a tie a
    delete), and which updates or deletes a stored row only when the
    incoming precombine_key is not smaller. The batch is staged once
    (scratch_tables.sql), as for Hudi, so the emptiness probe and the write
    read the same rows.

    What the model consumed with lake_changes is recorded with the write:
    a table built whole keeps it in the table properties its CREATE OR
    REPLACE sets; an incremental write records it in its commit as its format
    keeps it (start_recorded_write and finish_recorded_write:
    formats/iceberg/writes.sql, formats/delta/writes.sql); a run that writes
    nothing sets it as table properties. -#}

{#- The write of a format written by SQL MERGE (Iceberg's, Delta's): the
    default of lakehouse_format_macro(format, 'write_model'). -#}
{% macro lakehouse_default__write_model(rebuild) -%}
  {{ return(lakehouse_write_merge_model(rebuild)) }}
{%- endmacro %}

{#- Nothing to note before such a write. -#}
{% macro lakehouse_default__before_write(existing_relation) -%}
{%- endmacro %}

{#- The record of what a write consumed (adapter.commit_record: the
    positions its change reads read, what it was built from) goes into its
    commit as the format keeps it: start_recorded_write before the write
    (`record` none: none, clearing one an earlier failed write left),
    finish_recorded_write after. A format that keeps none: nothing. -#}
{% macro lakehouse_default__start_recorded_write(relation, table_props, record) -%}
{%- endmacro %}

{% macro lakehouse_default__finish_recorded_write(relation, record) -%}
{%- endmacro %}

{#- Such a format needs no session settings for a write, nor checks of a
    snapshot's existing table. -#}
{% macro lakehouse_default__start_write(lake, strategy) -%}
{%- endmacro %}

{% macro lakehouse_default__finish_write() -%}
{%- endmacro %}

{% macro lakehouse_default__check_snapshot_table(relation, lake) -%}
{%- endmacro %}

{#- A column on_schema_change drops is dropped (lakehouse__alter_relation_add_remove_columns). -#}
{% macro lakehouse_default__check_column_drop(relation, remove_columns) -%}
{%- endmacro %}

{#- An empty table of `columns` for a seed or a snapshot, as such a format creates one. -#}
{% macro lakehouse_default__create_table(relation, columns, lake) -%}
  {{ return(lakehouse_create_merge_table(relation, columns, lake)) }}
{%- endmacro %}

{% macro lakehouse_write_merge_model(rebuild) -%}
  {%- set lake = adapter.table_config(model) -%}
  {%- set strategy = lakehouse_write_strategy(lake) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing_relation = load_relation(this) -%}
  {#- A model that was a view becomes a table: the view goes first. -#}
  {%- if existing_relation is not none and existing_relation.is_view -%}
    {%- do adapter.drop_relation(existing_relation) -%}
    {%- set existing_relation = none -%}
  {%- endif -%}
  {#- A Delta table whose location_root moved: a rebuild makes it at the new
      folder (the old one keeps its files), an incremental run refuses. -#}
  {%- if existing_relation is not none and config.get('location_root') -%}
    {%- set moved_from = adapter.moved_location(existing_relation, lakehouse_model_location()) -%}
    {%- if moved_from and rebuild -%}
      {%- do adapter.drop_relation(existing_relation) -%}
      {%- set existing_relation = none -%}
    {%- elif moved_from -%}
      {{ exceptions.raise_compiler_error(
          "Model " ~ model.name ~ ": its table is at " ~ moved_from ~ ", and location_root puts it at "
          ~ lakehouse_model_location() ~ ". Run it with --full-refresh to build it there (the files at "
          ~ moved_from ~ " stay), or set location_root back.") }}
    {%- endif -%}
  {%- endif -%}
  {%- set temp_relation = adapter.scratch_relation(this, 'batch') -%}
  {%- if temp_relation.schema is not none -%}
    {#- (A scratch table is parquet, in the session catalog's schema of that name.) -#}
    {%- do adapter.create_schema(temp_relation.without_identifier()) -%}
  {%- endif -%}

  {#- (A write that failed in an earlier model of this session may have left
      its write-audit-publish id: a write under it would only be staged.) -#}
  {%- do lakehouse_format_macro(lake.format, 'start_recorded_write')(target_relation, none, none) -%}
  {%- do lakehouse_stage_change_reads() -%}
  {%- do lakehouse_create_scratch_table(temp_relation, lakehouse_model_sql()) -%}
  {%- set columns = adapter.get_columns_in_relation(temp_relation) -%}
  {%- do lake.check_columns(columns | map(attribute='name') | list) -%}

  {%- if existing_relation is none or rebuild -%}
    {#- A new table, a `table` model or a full refresh: the batch (one row
        per key, no deletes) in one commit; a table already there keeps its
        history (its earlier snapshots) and its readers never miss it. -#}
    {%- if existing_relation is none -%}
      {%- do lakehouse_clear_killed_create(target_relation, replaces=true) -%}
    {%- endif -%}
    {%- set properties = lake.table_properties() -%}
    {%- do properties.update(adapter.table_records(model)) -%}
    {%- call statement('main') -%}
      create or replace table {{ target_relation }}
      {{ lakehouse_merge_table_spec(lake, properties) }}
      as select {{ columns | map(attribute='quoted') | join(', ') }}
      from {{ lakehouse_merge_batch(temp_relation, columns, lake, with_deletes=false) }}
    {%- endcall -%}
    {%- do lakehouse_table_services(target_relation, lake) -%}
  {%- else -%}
    {%- set table_props, partition_fields = adapter.catalog_table_settings(existing_relation) -%}
    {%- do lakehouse_update_table_properties(target_relation, lake.changes(table_props, partition_fields)) -%}
    {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
    {%- do process_schema_changes(on_schema_change, temp_relation, existing_relation) -%}
    {#- (An empty microbatch still empties its window, when it holds rows.) -#}
    {%- if lakehouse_is_empty(temp_relation) and not (strategy == 'microbatch'
          and lakehouse_has_rows(target_relation, lakehouse_microbatch_window())) -%}
      {{ log("Model " ~ model.name ~ ": no new rows, no snapshot written.", info=true) }}
      {%- do lakehouse_update_table_properties(target_relation, adapter.skipped_write_positions(model)) -%}
      {%- call statement('main') -%}
        select 0 as rows_written
      {%- endcall -%}
    {%- else -%}
      {%- set arg_dict = {
          'target_relation': target_relation,
          'temp_relation': temp_relation,
          'dest_columns': adapter.get_columns_in_relation(target_relation),
          'source_columns': columns,
          'incremental_predicates': config.get('incremental_predicates') or config.get('predicates'),
      } -%}
      {#- insert_overwrite replaces the partitions the batch writes (Spark's
          dynamic overwrite, which Iceberg follows), the whole table if unpartitioned. -#}
      {%- if strategy == 'insert_overwrite' -%}
        {%- call statement('dynamic_overwrite', auto_begin=False) -%}
          set spark.sql.sources.partitionOverwriteMode = dynamic
        {%- endcall -%}
      {%- endif -%}
      {%- set record = adapter.commit_record(model, invocation_id) -%}
      {%- do lakehouse_format_macro(lake.format, 'start_recorded_write')(target_relation, table_props, record) -%}
      {%- call statement('main') -%}
        {{ lakehouse_merge_write_sql(strategy, arg_dict, lake) }}
      {%- endcall -%}
      {%- do lakehouse_format_macro(lake.format, 'finish_recorded_write')(target_relation, record) -%}
      {%- if strategy == 'insert_overwrite' -%}
        {%- call statement('dynamic_overwrite_reset', auto_begin=False) -%}
          reset spark.sql.sources.partitionOverwriteMode
        {%- endcall -%}
      {%- endif -%}
      {%- do lakehouse_table_services(target_relation, lake) -%}
    {%- endif -%}
  {%- endif -%}
  {%- do lakehouse_drop_scratch_table(temp_relation) -%}
  {%- do lakehouse_drop_change_reads() -%}
  {{ return(target_relation) }}
{%- endmacro %}


{#- The configs of an Iceberg or a Delta model (merge_table.py in the adapter):
    its format's table_config, as for any format. -#}
{% macro lakehouse_merge_config(node) -%}
  {{ return(adapter.table_config(node)) }}
{%- endmacro %}


{#- What follows CREATE TABLE's name and columns for an Iceberg or a Delta
    table of the model's configs: format, partition fields, table properties. -#}
{% macro lakehouse_merge_table_spec(lake, properties) -%}
      using {{ lake.format }}
      {%- if lake.partition_fields() %}
      partitioned by ({{ lake.partition_fields() | join(', ') }})
      {%- endif %}
      {{- location_clause() }}
      tblproperties (
        {%- for key, value in properties.items() %}
        {{ lakehouse_string_literal(key) }} = {{ lakehouse_string_literal(value) }}{{ "," if not loop.last }}
        {%- endfor %}
      )
{%- endmacro %}


{#- An empty Iceberg or Delta table of `columns` (each with name and data_type), for
    a seed or a snapshot. -#}
{% macro lakehouse_create_merge_table(relation, columns, lake) -%}
  create table {{ relation }} (
    {%- for column in columns %}
    {{ adapter.quote(column['name']) }} {{ column['data_type'] }}{{ "," if not loop.last }}
    {%- endfor %}
  )
  {{ lakehouse_merge_table_spec(lake, lake.table_properties()) }}
{%- endmacro %}


{% macro lakehouse_has_rows(relation, where) -%}
  {{ return(run_query('select 1 from ' ~ relation ~ ' where ' ~ where ~ ' limit 1').rows | length > 0) }}
{%- endmacro %}


{#- After a write: the compaction when its trigger is met, the cleaning when
    something would expire (the adapter's formats/iceberg/services.py and
    formats/delta/services.py decide from the table's snapshots or versions). -#}
{% macro lakehouse_table_services(target_relation, lake) -%}
  {%- for sql in adapter.services_after_write(target_relation, lake) -%}
    {%- call statement('table_service') -%}
      {{ sql }}
    {%- endcall -%}
    {{ log("Model " ~ model.name ~ ": " ~ sql.split('(')[0], info=true) }}
  {%- endfor -%}
{%- endmacro %}


{#- The staged batch as the write reads it: with a unique_key, one row per
    key (the largest precombine_key; on a tie, a delete wins, as on Hudi where
    deletes apply after the upserts, then the row lakehouse_tie_break sorts
    first, as on Hudi: lakehouse_one_per_key), with `lakehouse_is_delete`;
    without deletes when `with_deletes` is false. -#}
{% macro lakehouse_merge_batch(temp_relation, columns, lake, with_deletes) -%}
  {%- set is_delete = 'coalesce((' ~ lake.delete_condition ~ '), false)' if lake.delete_condition else 'false' -%}
  {%- if not lake.record_key -%}
  (select *, false as lakehouse_is_delete from {{ temp_relation }})
  {%- else -%}
  (select * from (
    select *, row_number() over (
      partition by {{ lake.record_key | join(', ') }}
      order by {% if lake.precombine_key %}{{ lake.precombine_key }} desc nulls last, {% endif %}lakehouse_is_delete desc, {{ lakehouse_tie_break(columns) }}
    ) as lakehouse_rank
    from (select *, {{ is_delete }} as lakehouse_is_delete from {{ temp_relation }})
  ) where lakehouse_rank = 1{% if not with_deletes %} and not lakehouse_is_delete{% endif %})
  {%- endif -%}
{%- endmacro %}


{% macro lakehouse_merge_write_sql(strategy, arg_dict, lake) -%}
  {%- set target = arg_dict['target_relation'] -%}
  {%- set present = arg_dict['source_columns'] | map(attribute='name') | map('lower') | list -%}
  {%- set cols = arg_dict['dest_columns'] | map(attribute='quoted') | list -%}
  {#- One value per target column, by name; NULL for one the batch lacks. -#}
  {%- set values = [] -%}
  {%- set value_of = {} -%}
  {%- for col in arg_dict['dest_columns'] -%}
    {%- set value = lakehouse_src() ~ '.' ~ col.quoted if col.name | lower in present else 'cast(null as ' ~ col.data_type ~ ')' -%}
    {%- do values.append(value) -%}
    {%- do value_of.update({col.name: value}) -%}
  {%- endfor -%}
  {%- set batch = lakehouse_merge_batch(arg_dict['temp_relation'], arg_dict['source_columns'], lake, with_deletes=true) -%}
  {%- if strategy in ('append', 'insert_overwrite') %}
  insert {{ 'overwrite' if strategy == 'insert_overwrite' else 'into' }} {{ target }} ({{ cols | join(', ') }})
  select {{ values | join(', ') }}
  from {{ batch }} as {{ lakehouse_src() }}
  {%- elif strategy == 'microbatch' %}
  {#- The batch replaces its event_time window in one snapshot: a row of the
      batch updates its key wherever it is stored (keys stay unique) or is
      inserted; a stored row of the window the batch does not have is deleted
      (a delete_condition row too: it is left out of the batch). Every batch
      row lands, whatever its precombine_key (as on Hudi). -#}
  merge into {{ target }} as {{ lakehouse_dest() }}
  using {{ lakehouse_merge_batch(arg_dict['temp_relation'], arg_dict['source_columns'], lake, with_deletes=false) }} as {{ lakehouse_src() }}
  on {{ lakehouse_key_match(lake.record_key) if lake.record_key else 'false' }}
  {%- if lake.record_key %}
  when matched then update set
    {%- for col in arg_dict['dest_columns'] %}
    {{ col.quoted }} = {{ value_of[col.name] }}{{ "," if not loop.last }}
    {%- endfor %}
  {%- endif %}
  when not matched then insert ({{ cols | join(', ') }})
  values ({{ values | join(', ') }})
  when not matched by source and {{ lakehouse_microbatch_window() }} then delete
  {%- else -%}
    {%- set kept = lakehouse_kept_columns(arg_dict) -%}
    {%- set predicates = (arg_dict.get('incremental_predicates') or []) | list -%}
    {%- set newer = lakehouse_src() ~ '.' ~ lake.precombine_key ~ ' >= ' ~ lakehouse_dest() ~ '.' ~ lake.precombine_key if lake.precombine_key else none %}
  merge into {{ target }} as {{ lakehouse_dest() }}
  using (
    select {{ lakehouse_src() }}.* from {{ batch }} as {{ lakehouse_src() }}
    {%- if predicates %}
    {#- A batch row whose key is stored in a row the predicates exclude is
        left out: written, it would replace the very row they protect. #}
    left anti join {{ target }} as {{ lakehouse_dest() }}
      on {{ lakehouse_key_match(lake.record_key) }}
      and not coalesce(({{ predicates | join(') and (') }}), false)
    {%- endif %}
  ) as {{ lakehouse_src() }}
  on {{ lakehouse_key_match(lake.record_key) }}
  {%- if lake.delete_condition %}
  when matched and {{ lakehouse_src() }}.lakehouse_is_delete{{ ' and ' ~ newer if newer }} then delete
  {%- endif %}
  when matched and not {{ lakehouse_src() }}.lakehouse_is_delete{{ ' and ' ~ newer if newer }} then update set
    {%- for col in arg_dict['dest_columns'] if col.name | lower not in kept %}
    {{ col.quoted }} = {{ value_of[col.name] }}{{ "," if not loop.last }}
    {%- endfor %}
  when not matched and not {{ lakehouse_src() }}.lakehouse_is_delete then insert ({{ cols | join(', ') }})
  values ({{ values | join(', ') }})
  {%- endif -%}
{%- endmacro %}
