{#- Incremental strategies, found by dispatch: dbt's incremental machinery looks
    up get_incremental_<strategy>_sql, so a new strategy is a new macro here. Every
    statement names its columns, never `*`, so Hudi's _hoodie_* metadata columns
    of the target cannot get in the way on any run. -#}

{% macro lakehouse_insert_select(arg_dict, keyword='into') -%}
  {%- set cols = arg_dict['dest_columns'] | map(attribute='quoted') | list -%}
  insert {{ keyword }} table {{ arg_dict['target_relation'] }}
  select {{ cols | join(', ') }} from {{ arg_dict['temp_relation'] }}
{%- endmacro %}

{#- Hudi upsert: the record key finds the row, the precombine key decides which
    version wins, whatever order the versions arrive in. -#}
{% macro get_incremental_upsert_sql(arg_dict) -%}
  {{ return(adapter.dispatch('get_incremental_upsert_sql', 'dbt')(arg_dict)) }}
{%- endmacro %}

{% macro lakehouse__get_incremental_upsert_sql(arg_dict) -%}
  {{ lakehouse_insert_select(arg_dict) }}
{%- endmacro %}

{% macro lakehouse__get_incremental_append_sql(arg_dict) -%}
  {{ lakehouse_insert_select(arg_dict) }}
{%- endmacro %}

{% macro lakehouse__get_incremental_insert_overwrite_sql(arg_dict) -%}
  {{ lakehouse_insert_select(arg_dict, keyword='overwrite') }}
{%- endmacro %}

{% macro lakehouse__get_incremental_merge_sql(arg_dict) -%}
  {%- set target = arg_dict['target_relation'] -%}
  {%- set source = arg_dict['temp_relation'] -%}
  {%- set cols = arg_dict['dest_columns'] | map(attribute='quoted') | list -%}
  {%- set keys = adapter.hudi_config(model).record_key -%}
  {%- set predicates = (arg_dict.get('incremental_predicates') or []) | list -%}
  {%- for key in keys -%}
    {%- do predicates.append('dest.' ~ key ~ ' = src.' ~ key) -%}
  {%- endfor %}
  merge into {{ target }} as dest
  using {{ source }} as src
  on {{ predicates | join(' and ') }}
  when matched then update set
    {%- for col in cols %}
    {{ col }} = src.{{ col }}{{ "," if not loop.last }}
    {%- endfor %}
  when not matched then insert ({{ cols | join(', ') }})
  values ({% for col in cols %}src.{{ col }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}
