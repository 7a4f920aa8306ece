{#- Incremental strategies, found by dispatch: dbt's incremental machinery looks
    up get_incremental_<strategy>_sql, so a new strategy is a new macro here. Every
    statement names its columns, never `*`, so Hudi's _hoodie_* metadata columns
    of the target cannot get in the way on any run. With a delete_condition the
    strategy writes the other rows; lakehouse_apply_deletes then removes records. -#}

{#- The rows a strategy writes: all of the batch, or those that are not deletes. -#}
{% macro lakehouse_rows_to_write(arg_dict) -%}
  {%- set lake = adapter.hudi_config(model) -%}
  {%- if lake.delete_condition -%}
    (select * from {{ arg_dict['temp_relation'] }} where not {{ lakehouse_is_delete(lake) }})
  {%- else -%}
    {{ arg_dict['temp_relation'] }}
  {%- endif -%}
{%- endmacro %}

{#- NULL counts as "not a delete": the row is kept, never dropped silently. -#}
{% macro lakehouse_is_delete(lake) -%}
  coalesce(({{ lake.delete_condition }}), false)
{%- endmacro %}

{#- The value a write gives each target column: the batch's, or NULL for a
    column the batch does not have (on_schema_change may leave such columns). -#}
{% macro lakehouse_source_values(arg_dict, alias='src') -%}
  {%- set present = arg_dict['source_columns'] | map(attribute='name') | map('lower') | list -%}
  {%- set values = [] -%}
  {%- for col in arg_dict['dest_columns'] -%}
    {%- if col.name | lower in present -%}
      {%- do values.append(alias ~ '.' ~ col.quoted) -%}
    {%- else -%}
      {%- do values.append('cast(null as ' ~ col.data_type ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(values) }}
{%- endmacro %}

{% macro lakehouse_insert_select(arg_dict, keyword='into') -%}
  insert {{ keyword }} table {{ arg_dict['target_relation'] }}
  select {{ lakehouse_source_values(arg_dict) | join(', ') }}
  from {{ lakehouse_rows_to_write(arg_dict) }} as src
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

{#- Replaces the partitions the batch touches (dynamic overwrite, set with the
    write settings), or the whole table when it is not partitioned. -#}
{% macro lakehouse__get_incremental_insert_overwrite_sql(arg_dict) -%}
  {{ lakehouse_insert_select(arg_dict, keyword='overwrite') }}
{%- endmacro %}

{#- MERGE INTO with explicit columns; Hudi applies the precombine key to updates. -#}
{% macro lakehouse__get_incremental_merge_sql(arg_dict) -%}
  {%- set lake = adapter.hudi_config(model) -%}
  {%- set cols = arg_dict['dest_columns'] | map(attribute='quoted') | list -%}
  {%- set values = lakehouse_source_values(arg_dict) -%}
  {%- set predicates = (arg_dict.get('incremental_predicates') or []) | list -%}
  {%- for key in lake.record_key -%}
    {%- do predicates.append('dest.' ~ key ~ ' = src.' ~ key) -%}
  {%- endfor %}
  merge into {{ arg_dict['target_relation'] }} as dest
  using {{ lakehouse_rows_to_write(arg_dict) }} as src
  on {{ predicates | join(' and ') }}
  when matched then update set
    {%- for col in cols %}
    {{ col }} = {{ values[loop.index0] }}{{ "," if not loop.last }}
    {%- endfor %}
  when not matched then insert ({{ cols | join(', ') }})
  values ({{ values | join(', ') }})
{%- endmacro %}

{#- Removes the records whose batch row matches the delete_condition, unless the
    stored version is newer (the rule updates follow: the larger precombine value
    wins). Runs after the write, so a delete and a newer upsert of the same key
    in one batch leave the upsert. A DELETE by key, with the version check in its
    subquery: Hudi 1.2 mis-writes MOR deletes that carry a condition in a MERGE
    clause, and a MERGE delete on a date-typed record key matches nothing. -#}
{% macro lakehouse_apply_deletes(arg_dict, always=false) -%}
  {%- set lake = adapter.hudi_config(model) -%}
  {%- set target = arg_dict['target_relation'] -%}
  {%- set keys = lake.record_key | list -%}
  {%- set deletes -%}
    select {% for key in keys %}batch.{{ key }}{{ ", " if not loop.last }}{% endfor %}
    from (
      select * from {{ arg_dict['temp_relation'] }} where {{ lakehouse_is_delete(lake) }}
    ) as batch
    inner join {{ target }} as stored
      on {% for key in keys %}stored.{{ key }} = batch.{{ key }}{{ " and " if not loop.last }}{% endfor %}
    {%- if lake.precombine_key %}
    where batch.{{ lake.precombine_key }} >= stored.{{ lake.precombine_key }}
    {%- endif %}
  {%- endset -%}
  {#- `always`: the commit must happen even if nothing matches, because it
      carries the consumed upstream positions. -#}
  {%- if always or run_query(deletes ~ ' limit 1').rows | length > 0 -%}
    {%- call statement('apply_deletes') -%}
      delete from {{ target }}
      where {{ '(' ~ keys | join(', ') ~ ')' if keys | length > 1 else keys[0] }} in ({{ deletes }})
    {%- endcall -%}
  {%- endif -%}
{%- endmacro %}
