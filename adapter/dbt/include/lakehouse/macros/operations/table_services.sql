{#- Table services and time travel for the people who run the lake, as
    `dbt run-operation <name> --args '{model: dwd_billing_events, ...}'`.
    Each takes `model` (a model name of the project) or `table` (schema.table). -#}

{% macro lakehouse_table_name(model=none, table=none) -%}
  {%- if table -%}
    {{ return(table) }}
  {%- endif -%}
  {%- if not model -%}
    {{ exceptions.raise_compiler_error("Pass `model` (a model name) or `table` (schema.table).") }}
  {%- endif -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == model -%}
    {%- if node.config.get('file_format', 'hudi') != 'hudi' -%}
      {{ exceptions.raise_compiler_error("Model '" ~ model ~ "' is a " ~ node.config.get('file_format')
          ~ " table: this operation is Hudi's; on Iceberg and Delta: lake_compact, lake_clean,"
          ~ " lake_rollback.") }}
    {%- endif -%}
    {{ return(node.schema ~ '.' ~ node.alias) }}
  {%- endfor -%}
  {{ exceptions.raise_compiler_error("No model named '" ~ model ~ "' in this project.") }}
{%- endmacro %}

{#- The graph node of the Iceberg or Delta model named `model`; none for any other. -#}
{% macro lakehouse_merge_model(model) -%}
  {%- for node in graph.nodes.values() if model and node.resource_type == 'model'
      and node.name == model and node.config.get('file_format') in ('iceberg', 'delta') -%}
    {{ return(node) }}
  {%- endfor -%}
  {{ return(none) }}
{%- endmacro %}

{#- compact, clean or rollback (to `position`: a snapshot id, a Delta version)
    of an Iceberg or a Delta model, with its configs (the adapter's
    formats/iceberg/services.py, formats/delta/services.py). -#}
{% macro lakehouse_run_merge_service(node, service, position=none) -%}
  {%- set name = ([node.database] if node.database else []) + [node.schema, node.alias] -%}
  {%- set name = name | join('.') -%}
  {%- set statements = adapter.table_service(node, service, position) -%}
  {%- if not statements -%}
    {{ log(service ~ " of " ~ name ~ ": nothing to do", info=true) }}
  {%- endif -%}
  {%- for sql in statements -%}
    {{ lakehouse_print_rows(service ~ " of " ~ name ~ " (" ~ sql.split('(')[0] ~ "):", run_query(sql)) }}
  {%- endfor -%}
{%- endmacro %}

{% macro lakehouse_call(procedure, args) -%}
  {%- set rendered = [] -%}
  {%- for key, value in args.items() if value is not none -%}
    {%- do rendered.append(key ~ " => " ~ (value if value is number else "'" ~ value ~ "'")) -%}
  {%- endfor -%}
  {{ return(run_query("call " ~ procedure ~ "(" ~ rendered | join(", ") ~ ")")) }}
{%- endmacro %}

{% macro lakehouse_print_rows(title, result) -%}
  {{ log(title, info=true) }}
  {%- for row in result.rows %}
    {{ log("  " ~ row.values() | join("  "), info=true) }}
  {%- endfor %}
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

{#- op: schedule (plan only), run (execute pending plans, scheduling one first
    when none is pending). -#}
{% macro lake_compact(model=none, table=none, op='run') -%}
  {%- set merge_model = lakehouse_merge_model(model) -%}
  {%- if merge_model is not none -%}
    {{ return(lakehouse_run_merge_service(merge_model, 'compact')) }}
  {%- endif -%}
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

{#- Runs the compaction plans that the writes of models configured with
    `compaction: {mode: schedule}` have scheduled; nothing when none is
    pending, and no new plan is made. What a scheduler (or the warehouse's
    continuous mode) calls between builds, so that merging log files never
    delays a build. -#}
{% macro lake_compact_scheduled() -%}
  {%- for node in graph.nodes.values()
      if node.resource_type == 'model' and node.config.materialized == 'incremental'
      and node.config.get('file_format', 'hudi') == 'hudi' -%}
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
  {%- endfor -%}
  {#- Iceberg and Delta have no plans: a schedule-mode model is compacted here
      when its trigger is met. -#}
  {%- for node in graph.nodes.values()
      if node.resource_type == 'model' and node.config.get('file_format') in ('iceberg', 'delta')
      and adapter.get_relation(node.database, node.schema, node.alias) is not none -%}
    {%- do lakehouse_run_merge_service(node, 'scheduled') -%}
  {%- endfor -%}
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

{#- Cleans with the model's cleaning config when a model is given, else the table's. -#}
{% macro lake_clean(model=none, table=none) -%}
  {%- set merge_model = lakehouse_merge_model(model) -%}
  {%- if merge_model is not none -%}
    {{ return(lakehouse_run_merge_service(merge_model, 'clean')) }}
  {%- endif -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set args = {'table': name} -%}
  {%- if model -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == model -%}
      {%- set cleaning = adapter.hudi_config(node).cleaning -%}
      {%- if cleaning.policy -%}
        {%- do args.update({'clean_policy': cleaning.policy | upper}) -%}
        {%- set retain_arg = {'keep_latest_commits': 'retain_commits',
                              'keep_latest_file_versions': 'file_versions_retained',
                              'keep_latest_by_hours': 'hours_retained'}[cleaning.policy] -%}
        {%- do args.update({retain_arg: cleaning.retain}) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set result = lakehouse_call('run_clean', args) -%}
  {{ lakehouse_print_rows("clean of " ~ name ~ ":", result) }}
{%- endmacro %}

{#- Rewrites small files into larger ones sorted by order_by (data skipping). -#}
{% macro lake_cluster(model=none, table=none, order_by=none) -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set order = order_by | join(',') if order_by is not string and order_by is not none else order_by -%}
  {%- set result = lakehouse_call('run_clustering', {'table': name, 'order': order}) -%}
  {{ lakehouse_print_rows("clustering of " ~ name ~ " (instant, file groups, state):", result) }}
{%- endmacro %}

{#- Retracts the completed write `instant` (the latest one) and its data. -#}
{% macro lake_rollback(instant, model=none, table=none) -%}
  {%- set merge_model = lakehouse_merge_model(model) -%}
  {%- if merge_model is not none -%}
    {{ return(lakehouse_run_merge_service(merge_model, 'rollback', instant | string)) }}
  {%- endif -%}
  {%- set name = lakehouse_table_name(model, table) -%}
  {%- set result = lakehouse_call('rollback_to_instant', {'table': name, 'instant_time': instant | string}) -%}
  {{ lakehouse_print_rows("rollback of " ~ instant ~ " on " ~ name ~ ":", result) }}
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
  {{ lakehouse_print_rows("restore of " ~ name ~ " to " ~ instant ~ ":", result) }}
{%- endmacro %}
