{#- One write path for Hudi models, shared by the `table` and `incremental`
    materializations: validate the configs, stage the SELECT as a temporary
    view, check the key columns against what it outputs, (re)create the table
    when needed, then write through the model's strategy with its settings. -#}

{% macro lakehouse_write_hudi_model(rebuild) -%}
  {%- set lake = adapter.hudi_config(model) -%}
  {%- set strategy = config.get('incremental_strategy') or ('upsert' if lake.record_key else 'append') -%}
  {%- do lake.check_strategy(strategy) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing_relation = load_relation(this) -%}
  {%- set temp_relation = make_temp_relation(this).include(database=false, schema=false) -%}

  {%- call statement('create_temp_view') -%}
    {{ create_temporary_view(temp_relation, compiled_code) }}
  {%- endcall -%}
  {%- set columns = adapter.get_columns_in_relation(temp_relation) -%}
  {%- do lake.check_columns(columns | map(attribute='name') | list) -%}

  {%- if rebuild or existing_relation is none or existing_relation.is_view -%}
    {%- if existing_relation is not none -%}
      {%- do adapter.drop_relation(existing_relation) -%}
    {%- endif -%}
    {%- call statement('create_table') -%}
      {{ lakehouse_create_hudi_table(target_relation, columns, lake) }}
    {%- endcall -%}
    {#- The first load of a keyed table upserts (dedup by key); a keyless one appends. -#}
    {%- set strategy = 'upsert' if lake.record_key else 'append' -%}
  {%- else -%}
    {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
    {%- do process_schema_changes(on_schema_change, temp_relation, existing_relation) -%}
  {%- endif -%}

  {%- set arg_dict = {
      'target_relation': target_relation,
      'temp_relation': temp_relation,
      'unique_key': lake.record_key,
      'dest_columns': adapter.get_columns_in_relation(target_relation),
      'incremental_predicates': config.get('incremental_predicates'),
  } -%}
  {%- set strategy_sql_macro = adapter.get_incremental_strategy_macro(context, strategy) -%}
  {%- do lakehouse_apply_write_settings(lake.write_settings(strategy)) -%}
  {%- call statement('main') -%}
    {{ strategy_sql_macro(arg_dict) }}
  {%- endcall -%}
  {%- do lakehouse_clear_write_settings() -%}
  {%- do adapter.drop_relation(temp_relation.incorporate(type='view')) -%}
  {{ return(target_relation) }}
{%- endmacro %}
