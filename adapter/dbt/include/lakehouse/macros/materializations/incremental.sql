{% materialization incremental, adapter='lakehouse', supported_languages=['sql'] -%}
  {%- if lakehouse_file_format() != 'hudi' -%}
    {{ exceptions.raise_compiler_error(
        "Model '" ~ model.name ~ "': dbt-lakehouse writes incremental models as Hudi tables; "
        ~ "file_format '" ~ lakehouse_file_format() ~ "' is not supported. Remove file_format or set it to 'hudi'.") }}
  {%- endif -%}
  {{ run_hooks(pre_hooks) }}
  {%- do lakehouse_note_write_start(load_relation(this)) -%}
  {%- set target_relation = lakehouse_write_hudi_model(rebuild=should_full_refresh()) -%}
  {% do persist_docs(target_relation, model) %}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}
