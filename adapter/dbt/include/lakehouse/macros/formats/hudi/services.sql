{#- Hudi's table services and time travel (operations/table_services.sql
    dispatches lake_compact, lake_clean, lake_rollback and
    lake_compact_scheduled here for a Hudi model or a `table`): Hudi's own
    procedures, called with `CALL`. The operations only Hudi has
    (lake_timeline, lake_cluster, lake_savepoint, lake_restore) are here too. -#}

{#- The table a Hudi operation acts on: `table` (schema.table), or the Hudi
    model named `model`. -#}
{% macro lakehouse_table_name(model=none, table=none) -%}
  {%- if table -%}
    {{ return(table) }}
  {%- endif -%}
  {%- if not model -%}
    {{ exceptions.raise_compiler_error("Pass `model` (a model name) or `table` (schema.table).") }}
  {%- endif -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == model -%}
    {%- if lakehouse_node_format(node) != 'hudi' -%}
      {{ exceptions.raise_compiler_error("Model '" ~ model ~ "' is a " ~ lakehouse_node_format(node)
          ~ " table: this operation is Hudi's; on Iceberg and Delta: lake_compact, lake_clean,"
          ~ " lake_rollback.") }}
    {%- endif -%}
    {{ return(node.schema ~ '.' ~ node.alias) }}
  {%- endfor -%}
  {{ exceptions.raise_compiler_error("No model named '" ~ model ~ "' in this project.") }}
{%- endmacro %}

{% macro lakehouse_call(procedure, args) -%}
  {%- set rendered = [] -%}
  {%- for key, value in args.items() if value is not none -%}
    {%- do rendered.append(key ~ " => " ~ (value if value is number else "'" ~ value ~ "'")) -%}
  {%- endfor -%}
  {{ return(run_query("call " ~ procedure ~ "(" ~ rendered | join(", ") ~ ")")) }}
{%- endmacro %}

{% macro lakehouse_hudi__compact(node, model, table, op) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- if op not in ['schedule', 'run'] -%}
    {{ exceptions.raise_compiler_error("lake_compact: op must be 'schedule' or 'run', not '" ~ op ~ "'.") }}
  {%- endif -%}
  {%- if op == 'schedule' -%}
    {%- set result = lakehouse_call('run_compaction', {'op': 'schedule', 'table': name}) -%}
  {%- else -%}
    {%- set pending = lakehouse_call('show_compaction', {'table': name}).rows
        | selectattr('state', 'equalto', 'REQUESTED') | list -%}
    {%- if not pending -%}
      {%- do lakehouse_call('run_compaction', {'op': 'schedule', 'table': name}) -%}
    {%- endif -%}
    {%- set result = lakehouse_call('run_compaction', {'op': 'run', 'table': name}) -%}
  {%- endif -%}
  {{ lakehouse_print_rows("compaction " ~ op ~ " on " ~ name ~ " (instant, file groups, state):", result) }}
{%- endmacro %}

{#- The compaction plans the writes of an incremental merge-on-read model
    with `compaction: {mode: schedule}` scheduled; no new plan is made. -#}
{% macro lakehouse_hudi__compact_scheduled(node) -%}
  {%- if node.config.materialized != 'incremental' -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set compaction = adapter.hudi_config(node).compaction -%}
  {%- if compaction.table_type == 'mor' and compaction.mode == 'schedule'
      and adapter.get_relation(node.database, node.schema, node.alias) is not none -%}
    {%- set name = node.schema ~ '.' ~ node.alias -%}
    {%- set result = lakehouse_run_pending_compactions(name) -%}
    {%- if result is not none -%}
      {{ lakehouse_print_rows("scheduled compaction run on " ~ name ~ " (instant, file groups, state):", result) }}
    {%- else -%}
      {{ log("no compaction pending on " ~ name, info=true) }}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}

{#- Runs the pending compaction plans of the table `name` and returns what
    run_compaction reported, or none when no plan was pending. An inflight
    plan is one a killed process left: Hudi rolls it back and runs it again. -#}
{% macro lakehouse_run_pending_compactions(name) -%}
  {%- set pending = lakehouse_call('show_compaction', {'table': name}).rows
      | selectattr('state', 'in', ['REQUESTED', 'INFLIGHT']) | list -%}
  {%- if not pending -%}
    {{ return(none) }}
  {%- endif -%}
  {{ return(lakehouse_call('run_compaction', {'op': 'run', 'table': name})) }}
{%- endmacro %}

{#- With the model's cleaning config when a model is given, else the table's. -#}
{% macro lakehouse_hudi__clean(node, model, table, position) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set args = {'table': name} -%}
  {%- if node is not none -%}
    {%- set cleaning = adapter.hudi_config(node).cleaning -%}
    {%- if cleaning.policy -%}
      {%- do args.update({'clean_policy': cleaning.policy | upper}) -%}
      {%- set retain_arg = {'keep_latest_commits': 'retain_commits',
                            'keep_latest_file_versions': 'file_versions_retained',
                            'keep_latest_by_hours': 'hours_retained'}[cleaning.policy] -%}
      {%- do args.update({retain_arg: cleaning.retain}) -%}
    {%- endif -%}
  {%- endif -%}
  {%- set result = lakehouse_call('run_clean', args) -%}
  {{ lakehouse_print_rows("clean of " ~ name ~ ":", result) }}
{%- endmacro %}

{#- Retracts the completed write `instant` (the latest one) and its data. -#}
{% macro lakehouse_hudi__rollback(node, model, table, instant) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set result = lakehouse_call('rollback_to_instant', {'table': name, 'instant_time': instant}) -%}
  {{ lakehouse_print_rows("rollback of " ~ instant ~ " on " ~ name ~ ":", result) }}
{%- endmacro %}

{#- Instants of the active timeline, newest first: instant, action, state, completed. -#}
{% macro lake_timeline(model=none, table=none, limit=20) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set result = lakehouse_call('show_timeline', {'table': name, 'limit': limit}) -%}
  {{ log("timeline of " ~ name ~ " (instant, action, state, completed):", info=true) }}
  {%- for row in result.rows %}
    {{ log("  " ~ row['instant_time'] ~ "  " ~ row['action'] ~ "  " ~ row['state'] ~ "  " ~ (row['completed_time'] or '-'), info=true) }}
  {%- endfor %}
  {{ return(result) }}
{%- endmacro %}

{#- Rewrites small files into larger ones sorted by order_by (data skipping). -#}
{% macro lake_cluster(model=none, table=none, order_by=none) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set order = order_by | join(',') if order_by is not string and order_by is not none else order_by -%}
  {%- set result = lakehouse_call('run_clustering', {'table': name, 'order': order}) -%}
  {{ lakehouse_print_rows("clustering of " ~ name ~ " (instant, file groups, state):", result) }}
{%- endmacro %}

{#- Marks `instant` (default: the latest commit) as a point to restore to. -#}
{% macro lake_savepoint(model=none, table=none, instant=none) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set result = lakehouse_call('create_savepoint', {'table': name, 'commit_time': instant | string if instant else none}) -%}
  {{ lakehouse_print_rows("savepoint on " ~ name ~ ":", result) }}
{%- endmacro %}

{#- Restores the table to the savepoint `instant`: every later write is undone. -#}
{% macro lake_restore(instant, model=none, table=none) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set result = lakehouse_call('rollback_to_savepoint', {'table': name, 'instant_time': instant | string}) -%}
  {{ lakehouse_print_rows("restore of " ~ instant ~ " on " ~ name ~ ":", result) }}
{%- endmacro %}
