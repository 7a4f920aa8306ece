{#- A model of a table format the adapter holds (Hudi, Iceberg, Delta, or
    one another package registers) is written by its format's write_model
    (formats/dispatch.sql); a model of another format (parquet, orc, ...)
    keeps dbt-spark's materialization and strategies (append,
    insert_overwrite), as a `table` model of one does. -#}
{% materialization incremental, adapter='lakehouse', supported_languages=['sql'] -%}
  {%- set fmt = lakehouse_file_format() -%}
  {%- if not should_full_refresh() -%}
    {%- do lakehouse_check_stored_format(load_relation(this), fmt) -%}
  {%- endif -%}
  {%- if fmt not in adapter.table_formats() -%}
    {{ return(materialization_incremental_spark()) }}
  {%- endif -%}
  {{ run_hooks(pre_hooks) }}
  {%- do lakehouse_format_macro(fmt, 'before_write')(load_relation(this)) -%}
  {#- With skip_unchanged: nothing new in any range it reads by commit, and no
      new commit on its other upstreams, or the model's SQL said it has
      nothing new to read (lake_nothing_to_read): no Spark work, no commit. -#}
  {%- if config.get('skip_unchanged') and not should_full_refresh()
        and adapter.nothing_new_to_read(model, load_relation(this), lakehouse_upstream_relations()) -%}
    {%- set target_relation = lakehouse_skip_write("nothing new to read; not run") -%}
  {%- else -%}
    {%- set target_relation = lakehouse_format_macro(fmt, 'write_model')(rebuild=should_full_refresh()) -%}
    {% do persist_docs(target_relation, model) %}
  {%- endif -%}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}


{#- For an incremental model's SQL that reads something other than Hudi tables
    (a landing folder) and finds, as it compiles, that nothing in it is new:
    with skip_unchanged, the model is then not run (no Spark work, no commit).
    Call it only when nothing else the model reads can have changed. -#}
{% macro lake_nothing_to_read() -%}
  {%- if execute -%}
    {%- do adapter.note_nothing_to_read(model) -%}
  {%- endif -%}
{%- endmacro %}


{#- An incremental run adds to a table of the model's format: a table another
    format wrote (the model's file_format changed) cannot take its writes, and
    only a full refresh replaces it. -#}
{% macro lakehouse_check_stored_format(relation, fmt) -%}
  {%- set stored = adapter.table_format_of(relation) if relation is not none else none -%}
  {%- if stored and stored != fmt -%}
    {{ exceptions.raise_compiler_error(
        "Model '" ~ model.name ~ "': its table " ~ relation ~ " is a " ~ stored ~ " table, and file_format is "
        ~ fmt ~ ". Run it with --full-refresh to rebuild it as a " ~ fmt ~ " table (the " ~ stored
        ~ " table and its history go), or set file_format back to " ~ stored ~ ".") }}
  {%- endif -%}
{%- endmacro %}


{#- The strategy a model's write runs (Hudi's or Iceberg's config checks it).
    A `table` model is rebuilt whole: an incremental_strategy set for its
    folder or the whole project does not apply to it. -#}
{% macro lakehouse_write_strategy(lake) -%}
  {%- if model.config.materialized == 'incremental' -%}
    {{ return(lake.resolve_strategy(config.get('incremental_strategy') or lake.default_strategy)) }}
  {%- endif -%}
  {{ return(lake.default_strategy) }}
{%- endmacro %}


{#- The model's SELECT. Under an enforced contract, the query's column names
    and types are checked against the model's YAML before anything is
    written, and the columns take the YAML's order (what dbt's
    create_table_as does). -#}
{% macro lakehouse_model_sql() -%}
  {%- if config.get('contract').enforced -%}
    {%- do get_assert_columns_equivalent(compiled_code) -%}
    {{ return(get_select_subquery(compiled_code)) }}
  {%- endif -%}
  {{ return(compiled_code) }}
{%- endmacro %}
