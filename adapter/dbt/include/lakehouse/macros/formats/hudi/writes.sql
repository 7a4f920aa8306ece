{#- One write path for Hudi models, shared by the `table` and `incremental`
    materializations: validate the configs, stage the SELECT's result once
    (in memory or in a scratch table: scratch_tables.sql), check the key
    columns against what it outputs, (re)create the table or check it still
    matches the model, then write through the model's strategy with its settings.

    Why staged and not a view: a view is evaluated again at each use,
    and a write changes what a model reading {{ this }} (or the upstream it
    consumes) would return; the emptiness probe, the write and the deletes must
    all see the same batch. It also runs the model's query once, not each time. -#}

{% macro lakehouse_write_hudi_model(rebuild) -%}
  {%- set lake = adapter.hudi_config(model) -%}
  {%- set strategy = lakehouse_write_strategy(lake) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing_relation = load_relation(this) -%}
  {%- set temp_relation = adapter.scratch_relation(this, 'batch') -%}

  {%- do lakehouse_stage_change_reads() -%}
  {%- set model_sql = lakehouse_model_sql() -%}
  {#- (A batch left by a run that died is stale, its run wrote nothing: it is replaced.) -#}
  {%- do lakehouse_create_scratch_table(temp_relation, model_sql) -%}
  {%- set columns = adapter.get_columns_in_relation(temp_relation) -%}
  {%- do lake.check_columns(columns | map(attribute='name') | list) -%}

  {%- set no_table = existing_relation is none or existing_relation.is_view -%}
  {#- A `table` model's rebuild replaces the rows of its table in one commit
      when the table can stay as it is (adapter rebuilds_in_place): never a
      moment without the table for its readers. A full refresh, a changed
      layout, index or columns, a location_root, or an empty result drop
      and create it. -#}
  {%- if not no_table -%}  {#- (read once, for both the choice and the write) -#}
    {%- set table_props, partition_columns, location = adapter.hudi_table_settings(existing_relation) -%}
  {%- endif -%}
  {%- set in_place = rebuild and not no_table and not should_full_refresh()
        and not config.get('location_root')
        and adapter.rebuilds_in_place(lake, existing_relation, temp_relation, table_props, partition_columns) -%}
  {%- set create = no_table or (rebuild and not in_place) -%}
  {%- if in_place -%}
    {%- set strategy = 'insert_overwrite' -%}
  {%- endif -%}
  {%- if create -%}
    {%- if existing_relation is not none -%}
      {%- do adapter.drop_relation(existing_relation) -%}
    {%- endif -%}
    {%- if no_table -%}
      {%- do lakehouse_clear_killed_create(target_relation, replaces=false) -%}
    {%- endif -%}
    {%- call statement('create_table') -%}
      {{ lakehouse_create_hudi_table(target_relation, columns, lake) }}
    {%- endcall -%}
    {#- The first load of a keyed table upserts (dedup by key), a keyless one
        appends; a keyless or single-column-key one as Hudi's bulk insert
        (write_settings' first_load). -#}
    {%- set strategy = lake.default_strategy -%}
  {%- else -%}
    {#- What the table's settings need: properties altered in place, or a
        full refresh (refused with the message that says so). -#}
    {%- set changes = lake.changes(table_props, partition_columns) -%}
    {%- do changes.refuse_rebuild(model.name) -%}
    {%- set recovered = adapter.recover_metadata_table(existing_relation, location) -%}
    {%- if recovered -%}
      {{ exceptions.warn(recovered) }}
    {%- endif -%}
    {#- A write never lands on the file slices of a pending compaction of a
        table with CDC on: its consumers' CDC reads could not read it once
        the compaction completed (adapter formats/hudi/compaction_order.py). -#}
    {%- if adapter.compacts_before_writing(table_props) -%}
      {%- set compacted = lakehouse_run_pending_compactions(target_relation.schema ~ '.' ~ target_relation.identifier) -%}
      {%- if compacted is not none -%}
        {{ log("Model " ~ model.name ~ ": ran the compaction plan(s) pending on " ~ target_relation ~ " before writing to it: " ~ compacted.rows | map(attribute='timestamp') | join(', '), info=true) }}
      {%- endif -%}
    {%- endif -%}
    {%- do lakehouse_update_table_properties(target_relation, changes.alter) -%}
    {%- if not in_place -%}  {#- (its columns are the model's already) -#}
      {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
      {%- do process_schema_changes(on_schema_change, temp_relation, existing_relation) -%}
    {%- endif -%}
  {%- endif -%}

  {#- (A strategy that runs when empty, microbatch, has a window to empty:
      it writes no commit when there is nothing to do.) -#}
  {%- if not create and not in_place and not lake.strategy(strategy).runs_when_empty and lakehouse_is_empty(temp_relation) -%}
    {#- Nothing arrived: write nothing, so the timeline gets no empty commit. -#}
    {{ log("Model " ~ model.name ~ ": no new rows, no commit written.", info=true) }}
    {#- ...but the ranges it read are done with: record how far it read. -#}
    {%- do lakehouse_update_table_properties(target_relation, adapter.skipped_write_positions(model)) -%}
    {%- call statement('main') -%}
      select 0 as rows_written
    {%- endcall -%}
  {%- else -%}
    {%- set arg_dict = {
        'target_relation': target_relation,
        'temp_relation': temp_relation,
        'unique_key': lake.record_key,
        'dest_columns': lake.created_columns(columns) if create else adapter.get_columns_in_relation(target_relation),
        'source_columns': columns,
        'incremental_predicates': config.get('incremental_predicates') or config.get('predicates'),
    } -%}
    {%- set strategy_sql_macro = adapter.get_incremental_strategy_macro(context, strategy) -%}
    {#- The upstream positions this run consumed go into the extra metadata of
        its last commit: the deletes' when the batch has deletes, else the main one.
        Hudi reads its write configs from the session (they beat table
        properties), so each write sets what it needs and clears them after;
        sessions are per connection, so this never reaches another thread's write. -#}
    {%- set has_deletes = lake.delete_condition and lakehouse_has_deletes(temp_relation, lake) -%}
    {%- do adapter.apply_write_settings(lake, strategy, none if has_deletes else model, whole_table=in_place, first_load=create) -%}
    {%- call statement('main') -%}
      {{ strategy_sql_macro(arg_dict) }}
    {%- endcall -%}
    {%- if has_deletes -%}
      {%- do adapter.apply_write_settings(lake, strategy, model) -%}
      {%- do lakehouse_apply_deletes(arg_dict, always=(adapter.position_settings(model) | length > 0)) -%}
    {%- endif -%}
    {%- do adapter.clear_write_settings() -%}
  {%- endif -%}
  {%- do lakehouse_drop_scratch_table(temp_relation) -%}
  {%- do lakehouse_drop_change_reads() -%}
  {{ return(target_relation) }}
{%- endmacro %}


{% macro lakehouse_has_deletes(relation, lake) -%}
  {%- set probe = run_query('select 1 from ' ~ relation ~ ' where ' ~ lakehouse_is_delete(lake) ~ ' limit 1') -%}
  {{ return(probe.rows | length > 0) }}
{%- endmacro %}


{% macro lakehouse_is_empty(relation) -%}
  {%- set probe = run_query('select 1 from ' ~ relation ~ ' limit 1') -%}
  {{ return(probe.rows | length == 0) }}
{%- endmacro %}


{#- Compaction and cleaning may change between runs: record the new values on
    the table so that what applies is visible there (writes SET them anyway). -#}
{% macro lakehouse_update_table_properties(relation, changed) -%}
  {%- if changed -%}
    {%- call statement('alter_tblproperties') -%}
      alter table {{ relation }} set tblproperties (
        {%- for key, value in changed.items() %}
        {{ lakehouse_string_literal(key) }} = {{ lakehouse_string_literal(value) }}{{ "," if not loop.last }}
        {%- endfor %}
      )
    {%- endcall -%}
  {%- endif -%}
{%- endmacro %}


{#- Hudi's macros of the shared materializations (formats/dispatch.sql). -#}
{% macro lakehouse_hudi__write_model(rebuild) -%}
  {{ return(lakehouse_write_hudi_model(rebuild)) }}
{%- endmacro %}

{#- What the write's data tests may scope to (data_test_scope.sql). -#}
{% macro lakehouse_hudi__before_write(existing_relation) -%}
  {%- do lakehouse_note_write_start(existing_relation) -%}
{%- endmacro %}

{% macro lakehouse_hudi__create_table(relation, columns, lake) -%}
  {{ return(lakehouse_create_hudi_table(relation, columns, lake)) }}
{%- endmacro %}

{#- A write's hoodie.* settings are the session's while it runs. -#}
{% macro lakehouse_hudi__start_write(lake, strategy) -%}
  {%- do adapter.apply_write_settings(lake, strategy) -%}
{%- endmacro %}

{% macro lakehouse_hudi__finish_write() -%}
  {%- do adapter.clear_write_settings() -%}
{%- endmacro %}

{% macro lakehouse_hudi__check_snapshot_table(relation, lake) -%}
  {%- do lakehouse_snapshot_check_table(relation, lake) -%}
{%- endmacro %}

{#- Upserted by the scd id (the record key), with the upsert's write settings. -#}
{% macro lakehouse_hudi__snapshot_write_sql(target, batch, scd_id) -%}
  {{ return(lakehouse_snapshot_insert_sql(target, batch)) }}
{%- endmacro %}


{#- An existing snapshot table: refuse a changed table type (Hudi would keep
    writing the old type without a word), recover a metadata table a dead writer
    left half-compacted, and record changed compaction/cleaning settings. -#}
{% macro lakehouse_snapshot_check_table(relation, lake) -%}
  {%- set props, partitions, location = adapter.hudi_table_settings(relation) -%}
  {%- set stored_type = (props.get('type') or 'cow') | lower -%}
  {%- if stored_type != lake.table_type -%}
    {{ exceptions.raise_compiler_error(
        "Snapshot '" ~ model.name ~ "': table_type cannot change on an existing Hudi table (table has '"
        ~ stored_type ~ "', snapshot has '" ~ lake.table_type ~ "'). A snapshot's history lives only in "
        ~ relation ~ ": copy it elsewhere first if you need it, then drop the table and run `dbt snapshot` again.") }}
  {%- endif -%}
  {%- set recovered = adapter.recover_metadata_table(relation, location) -%}
  {%- if recovered -%}
    {{ exceptions.warn(recovered) }}
  {%- endif -%}
  {%- do lakehouse_update_table_properties(relation, lake.changed_properties(props)) -%}
{%- endmacro %}


{#- The batch has the table's columns, in its order. -#}
{% macro lakehouse_snapshot_insert_sql(target, batch) -%}
  {%- set cols = adapter.get_columns_in_relation(batch) | map(attribute='quoted') | join(', ') -%}
  insert into {{ target }}
  select {{ cols }}
  from {{ batch }}
{%- endmacro %}


{#- Hudi's CREATE options come from the typed config, never from raw strings. -#}
{% macro lakehouse_hudi__options_clause() -%}
  {{ return(lakehouse_hudi_options_clause(adapter.hudi_config(model))) }}
{%- endmacro %}

{% macro lakehouse_hudi_options_clause(lake) -%}
  {%- set options = lake.table_options() %}
  options (
    {%- for key, value in options.items() %}
    {{ lakehouse_string_literal(key) }} = {{ lakehouse_string_literal(value) }}{{ "," if not loop.last }}
    {%- endfor %}
  )
{%- endmacro %}


{#- CREATE TABLE with an explicit schema and no data; the rows then go in through
    the same write path as every incremental run, so dedup by record key and
    precombine key hold on the first run too (CTAS would bulk insert duplicates). -#}
{% macro lakehouse_create_hudi_table(relation, columns, lake) -%}
  create table {{ relation }} (
    {%- for column in columns %}
    {{ lakehouse_backquoted(column.name) }} {{ column.data_type }}{{ "," if not loop.last }}
    {%- endfor %}
  )
  using hudi
  {{ lakehouse_hudi_options_clause(lake) }}
  {%- if lake.partition_by %}
  partitioned by ({% for col in lake.partition_by %}{{ lakehouse_backquoted(col) }}{{ ", " if not loop.last }}{% endfor %})
  {%- endif %}
  {{ location_clause() }}
  {{ comment_clause() }}
  {%- if lake.user_properties %}
  tblproperties (
    {%- for key, value in lake.user_properties.items() %}
    {{ lakehouse_string_literal(key) }} = {{ lakehouse_string_literal(value) }}{{ "," if not loop.last }}
    {%- endfor %}
  )
  {%- endif %}
{%- endmacro %}
