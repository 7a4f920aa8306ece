{#- A `table` model is rebuilt through its format's write path, the same as
    its incremental models' (write_model: formats/dispatch.sql); formats the
    adapter does not hold keep dbt-spark's materialization. With
    `skip_unchanged: true` it is rebuilt only when something it selects from
    has a new commit (see the adapter's writes/unchanged_builds.py). -#}
{% materialization table, adapter='lakehouse', supported_languages=['sql', 'python'] -%}
  {%- set fmt = lakehouse_file_format() -%}
  {%- if fmt not in adapter.table_formats() or model.language != 'sql' -%}
    {{ return(materialization_table_spark()) }}
  {%- endif -%}
  {{ run_hooks(pre_hooks) }}
  {%- do lakehouse_format_macro(fmt, 'before_write')(load_relation(this)) -%}
  {%- if config.get('skip_unchanged') and not should_full_refresh()
        and adapter.unchanged_since_last_build(model, load_relation(this), lakehouse_upstream_relations()) -%}
    {%- set target_relation = lakehouse_skip_write("nothing it selects from has a new commit; not rebuilt") -%}
  {%- else -%}
    {%- set target_relation = lakehouse_format_macro(fmt, 'write_model')(rebuild=true) -%}
    {% do persist_docs(target_relation, model) %}
  {%- endif -%}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}


{#- The relations of the models and sources this model selects from; none for
    an ephemeral model or one not built yet (such a model is always rebuilt). -#}
{% macro lakehouse_upstream_relations() -%}
  {%- set relations = [] -%}
  {%- for unique_id in model.depends_on.nodes -%}
    {%- set node = graph.nodes.get(unique_id) or graph.sources.get(unique_id) -%}
    {%- if node is none or node.config.get('materialized') == 'ephemeral' -%}
      {%- do relations.append(none) -%}
    {%- else -%}
      {%- do relations.append(load_relation(api.Relation.create(
            database=node.database, schema=node.schema, identifier=node.alias or node.identifier))) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(relations) }}
{%- endmacro %}


{#- A model that needs no write: says so in the log, and gives dbt the
    statement result and the relation a materialization must return. -#}
{% macro lakehouse_skip_write(reason) -%}
  {{ log("Model " ~ model.name ~ ": " ~ reason ~ ", no commit written.", info=true) }}
  {%- call statement('main') -%}
    select 0 as rows_written
  {%- endcall -%}
  {{ return(this.incorporate(type='table')) }}
{%- endmacro %}
