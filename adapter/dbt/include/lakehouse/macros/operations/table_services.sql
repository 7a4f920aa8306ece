{#- Table services and time travel for the people who run the lake, as
    `dbt run-operation <name> --args '{model: dwd_billing_events, ...}'`.
    Each takes `model` (a model name of the project) or `table` (schema.table,
    a table of the default format). What a service does is the model's
    format's: the macro lakehouse_<format>__<service>
    (macros/formats/<format>/services.sql), else lakehouse_default__<service>
    below, which runs the statements the adapter's TableFormat.services give. -#}

{#- The format of a model's graph node (none: the default, for a `table`). -#}
{% macro lakehouse_node_format(node) -%}
  {%- set default = adapter.table_formats()[0] -%}
  {{ return(node.config.get('file_format') or default if node is not none else default) }}
{%- endmacro %}

{#- The graph node of the model named `model`; none when it names none. -#}
{% macro lakehouse_model_node(model) -%}
  {%- for node in graph.nodes.values() if model and node.resource_type == 'model' and node.name == model -%}
    {{ return(node) }}
  {%- endfor -%}
  {{ return(none) }}
{%- endmacro %}

{#- Runs `service` of the format of `model` (or of `table`'s, the default format). -#}
{% macro lakehouse_run_service(service, model, table, position=none) -%}
  {%- set node = lakehouse_model_node(model) -%}
  {%- set run = lakehouse_format_macro(lakehouse_node_format(node), service) -%}
  {{ return(run(node, model, table, position)) }}
{%- endmacro %}

{#- op: schedule (plan only), run (execute pending plans, scheduling one first
    when none is pending). -#}
{% macro lake_compact(model=none, table=none, op='run') -%}
  {{ return(lakehouse_run_service('compact', model, table, op)) }}
{%- endmacro %}

{#- Cleans with the model's cleaning config when a model is given, else the table's. -#}
{% macro lake_clean(model=none, table=none) -%}
  {{ return(lakehouse_run_service('clean', model, table)) }}
{%- endmacro %}

{#- Retracts the table's writes after `instant` (a Hudi instant: the latest
    write; an Iceberg snapshot id, a Delta version: the table as it was then). -#}
{% macro lake_rollback(instant, model=none, table=none) -%}
  {{ return(lakehouse_run_service('rollback', model, table, instant | string)) }}
{%- endmacro %}

{#- Runs the compactions the writes of models configured with
    `compaction: {mode: schedule}` left due: nothing when none is, and on
    Hudi no new plan is made. What a scheduler (or the warehouse's continuous
    mode) calls between builds, so that merging log files never delays a
    build. -#}
{% macro lake_compact_scheduled() -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model'
      and lakehouse_node_format(node) in adapter.table_formats() -%}
    {%- do lakehouse_format_macro(lakehouse_node_format(node), 'compact_scheduled')(node) -%}
  {%- endfor -%}
{%- endmacro %}

{#- A format's services by default: the statements its TableFormat.services
    gives (the adapter's formats/<format>/services.py), run one by one. -#}
{% macro lakehouse_default__compact(node, model, table, op) -%}
  {{ return(lakehouse_run_table_service(node, 'compact')) }}
{%- endmacro %}

{% macro lakehouse_default__clean(node, model, table, position) -%}
  {{ return(lakehouse_run_table_service(node, 'clean')) }}
{%- endmacro %}

{% macro lakehouse_default__rollback(node, model, table, position) -%}
  {{ return(lakehouse_run_table_service(node, 'rollback', position)) }}
{%- endmacro %}

{#- (Such a format keeps no plans: a schedule-mode model is compacted here
    when its trigger is met.) -#}
{% macro lakehouse_default__compact_scheduled(node) -%}
  {%- if adapter.get_relation(node.database, node.schema, node.alias) is not none -%}
    {%- do lakehouse_run_table_service(node, 'scheduled') -%}
  {%- endif -%}
{%- endmacro %}

{#- compact, clean or rollback (to `position`: a snapshot id, a Delta
    version) of a model, with its configs. -#}
{% macro lakehouse_run_table_service(node, service, position=none) -%}
  {%- if node is none -%}
    {{ exceptions.raise_compiler_error("Pass `model` (a model name): this format's services take the model's configs.") }}
  {%- endif -%}
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

{% macro lakehouse_print_rows(title, result) -%}
  {{ log(title, info=true) }}
  {%- for row in result.rows %}
    {{ log("  " ~ row.values() | join("  "), info=true) }}
  {%- endfor %}
{%- endmacro %}
