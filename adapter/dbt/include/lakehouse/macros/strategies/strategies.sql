{#- Incremental strategies, found by dispatch: dbt's incremental machinery looks
    up get_incremental_<strategy>_sql, so a new strategy is a new macro here and
    a row of the adapter's relation_configs/strategies.py (what it allows, which the macros read
    as `lake.strategy(name)`, and the docs). Every
    statement names its columns, never `*`, so Hudi's _hoodie_* metadata columns
    of the target cannot get in the way on any run. With a delete_condition the
    strategy writes the other rows; lakehouse_apply_deletes then removes records. -#}

{#- The rows a strategy writes: one value per target column, by its name, from
    the staged batch without its deletes (lakehouse_apply_deletes removes those
    records after the write), NULL for a target column the batch lacks
    (on_schema_change may leave one). For strategies that match records by key
    (`matches_stored` in relation_configs/strategies.py: upsert, merge) also:
    - incremental_predicates: a batch row whose key is stored in a record the
      predicates exclude is left out. dbt would insert it beside that record; a
      Hudi record key is unique, so writing it would replace the very record
      the predicates protect.
    - merge_update_columns / merge_exclude_columns: a batch row that matches a
      stored record carries that record's values of the columns not to update,
      and the write replaces whole records. Hudi does that right on COW and MOR
      alike, while a MERGE that sets only some columns corrupts MOR records in
      Hudi 1.2 (values land in the wrong columns). -#}
{% macro lakehouse_rows_to_write(arg_dict, strategy) -%}
  {%- set lake = adapter.hudi_config(model) -%}
  {%- set matching = lake.strategy(strategy).matches_stored -%}
  {%- set present = arg_dict['source_columns'] | map(attribute='name') | map('lower') | list -%}
  {%- set kept = lakehouse_kept_columns(arg_dict) if matching else [] -%}
  {%- set predicates = (arg_dict.get('incremental_predicates') or []) | list if matching else [] -%}
  (select
    {%- for col in arg_dict['dest_columns'] %}
    {%- set value = lakehouse_src() ~ '.' ~ col.quoted if col.name | lower in present else 'cast(null as ' ~ col.data_type ~ ')' %}
    {%- if col.name | lower in kept %}
    case when stored._hoodie_record_key is null then {{ value }} else stored.{{ col.quoted }} end as {{ col.quoted }}
    {%- else %}
    {{ value }} as {{ col.quoted }}
    {%- endif %}{{ "," if not loop.last }}
    {%- endfor %}
  {#- A write that keeps one row per key gets one: the one lakehouse_one_per_key picks. -#}
  {%- set one_per_key = lake.record_key and (matching or lake.strategy(strategy).overwrites) -%}
  from {{ lakehouse_batch_rows(arg_dict, lake, predicates, one_per_key) }} as {{ lakehouse_src() }}
  {%- if kept %}
  left join {{ arg_dict['target_relation'] }} as stored
    on {{ lakehouse_key_match(lake.record_key, 'stored') }}
  {%- endif %})
{%- endmacro %}

{% macro lakehouse_batch_rows(arg_dict, lake, predicates, one_per_key=false) -%}
  {%- set batch = lakehouse_one_per_key(arg_dict['temp_relation'], arg_dict['source_columns'], lake) if one_per_key else arg_dict['temp_relation'] -%}
  (select {{ lakehouse_src() }}.*
  from {{ batch }} as {{ lakehouse_src() }}
  {%- if predicates %}
  left anti join {{ arg_dict['target_relation'] }} as {{ lakehouse_dest() }}
    on {{ lakehouse_key_match(lake.record_key) }}
    and not coalesce(({{ predicates | join(') and (') }}), false)
  {%- endif %}
  {%- if lake.delete_condition %}
  where not {{ lakehouse_is_delete(lake) }}
  {%- endif %})
{%- endmacro %}

{#- The batch with one row per key, as every format keeps it: the largest
    precombine_key, and on a tie the row whose values sort last
    (lakehouse_tie_break). Hudi would pick one of the tied rows by the order it
    happens to process them in, and so would a MERGE's own deduplication: a
    rerun of the same batch, or the same batch on another format, could keep
    another row (a duplicate event landed again in a later file differs in
    its landing columns). The rows left go to Hudi without ties. -#}
{% macro lakehouse_one_per_key(relation, columns, lake) -%}
  (select {{ columns | map(attribute='quoted') | join(', ') }} from (
    select *, row_number() over (
      partition by {{ lake.record_key | join(', ') }}
      order by {% if lake.precombine_key %}{{ lake.precombine_key }} desc nulls last, {% endif %}{{ lakehouse_tie_break(columns) }}
    ) as lakehouse_rank
    from {{ relation }}
  ) where lakehouse_rank = 1)
{%- endmacro %}

{#- The order that decides between rows of one key and one precombine_key
    value: by their values, column by column in the batch's order, the
    largest last (so of two landings of one event, the later batch's, when
    the landing columns are the first that differ). Map columns cannot be
    ordered and are left out: rows equal in every other column are then
    equal for the order, and either may stay. -#}
{% macro lakehouse_tie_break(columns) -%}
  {%- set orderable = [] -%}
  {%- for col in columns if 'map<' not in (col.data_type | lower) -%}
    {%- do orderable.append(col.quoted ~ ' desc nulls last') -%}
  {%- endfor -%}
  {{ orderable | join(', ') if orderable else '1' }}
{%- endmacro %}

{#- The target columns a matched record keeps from storage (lower-cased): those
    not in merge_update_columns, or those in merge_exclude_columns. -#}
{% macro lakehouse_kept_columns(arg_dict) -%}
  {%- set update_only = config.get('merge_update_columns') -%}
  {%- set exclude = config.get('merge_exclude_columns') -%}
  {%- set setting = 'merge_update_columns' if update_only else 'merge_exclude_columns' -%}
  {%- if update_only and exclude -%}
    {{ exceptions.raise_compiler_error(
        "Model '" ~ model.name ~ "': set merge_update_columns or merge_exclude_columns, not both.") }}
  {%- endif -%}
  {%- set named = (update_only or exclude or []) | map('lower') | list -%}
  {%- set columns = arg_dict['dest_columns'] | map(attribute='name') | map('lower') | list -%}
  {%- for name in named if name not in columns -%}
    {{ exceptions.raise_compiler_error(
        "Model '" ~ model.name ~ "': " ~ setting ~ " names '" ~ name ~ "', which is not a column of "
        ~ arg_dict['target_relation'] ~ " (" ~ columns | join(', ') ~ ").") }}
  {%- endfor -%}
  {{ return(columns | reject('in', named) | list if update_only else named) }}
{%- endmacro %}

{% macro lakehouse_key_match(keys, dest=none) -%}
  {%- for key in keys -%}
    {{ dest or lakehouse_dest() }}.{{ key }} = {{ lakehouse_src() }}.{{ key }}{{ " and " if not loop.last }}
  {%- endfor -%}
{%- endmacro %}

{#- dbt's names for the two sides, so that incremental_predicates written for
    dbt (`DBT_INTERNAL_DEST.updated_at > ...`) work here too. -#}
{% macro lakehouse_dest() %}DBT_INTERNAL_DEST{% endmacro %}
{% macro lakehouse_src() %}DBT_INTERNAL_SOURCE{% endmacro %}

{#- NULL counts as "not a delete": the row is kept, never dropped silently. -#}
{% macro lakehouse_is_delete(lake) -%}
  coalesce(({{ lake.delete_condition }}), false)
{%- endmacro %}

{% macro lakehouse_insert_select(arg_dict, strategy) -%}
  insert {{ 'overwrite' if adapter.hudi_config(model).strategy(strategy).overwrites else 'into' }} table {{ arg_dict['target_relation'] }}
  select {{ arg_dict['dest_columns'] | map(attribute='quoted') | join(', ') }}
  from {{ lakehouse_rows_to_write(arg_dict, strategy) }}
{%- endmacro %}

{#- Hudi upsert: the record key finds the row, the precombine key decides which
    version wins, whatever order the versions arrive in. -#}
{% macro get_incremental_upsert_sql(arg_dict) -%}
  {{ return(adapter.dispatch('get_incremental_upsert_sql', 'dbt')(arg_dict)) }}
{%- endmacro %}

{% macro lakehouse__get_incremental_upsert_sql(arg_dict) -%}
  {{ lakehouse_insert_select(arg_dict, 'upsert') }}
{%- endmacro %}

{% macro lakehouse__get_incremental_append_sql(arg_dict) -%}
  {{ lakehouse_insert_select(arg_dict, 'append') }}
{%- endmacro %}

{#- Replaces the partitions the batch touches (dynamic overwrite, set with the
    write settings), or the whole table when it is not partitioned. -#}
{% macro lakehouse__get_incremental_insert_overwrite_sql(arg_dict) -%}
  {{ lakehouse_insert_select(arg_dict, 'insert_overwrite') }}
{%- endmacro %}

{#- MERGE INTO on the record key, every column named; Hudi applies the
    precombine key to updates. -#}
{% macro lakehouse__get_incremental_merge_sql(arg_dict) -%}
  {%- set lake = adapter.hudi_config(model) -%}
  {%- set cols = arg_dict['dest_columns'] | map(attribute='quoted') | list %}
  merge into {{ arg_dict['target_relation'] }} as {{ lakehouse_dest() }}
  using {{ lakehouse_rows_to_write(arg_dict, 'merge') }} as {{ lakehouse_src() }}
  on {{ lakehouse_key_match(lake.record_key) }}
  when matched then update set
    {%- for col in cols %}
    {{ col }} = {{ lakehouse_src() }}.{{ col }}{{ "," if not loop.last }}
    {%- endfor %}
  when not matched then insert ({{ cols | join(', ') }})
  values ({% for col in cols %}{{ lakehouse_src() }}.{{ col }}{{ ", " if not loop.last }}{% endfor %})
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
