{#- A Hudi `table` model is rebuilt on every run through the same write path as
    incremental models; other formats keep dbt-spark's materialization. -#}
{% materialization table, adapter='lakehouse', supported_languages=['sql', 'python'] -%}
  {%- if lakehouse_file_format() != 'hudi' or model.language != 'sql' -%}
    {{ return(materialization_table_spark()) }}
  {%- endif -%}
  {{ run_hooks(pre_hooks) }}
  {%- set target_relation = lakehouse_write_hudi_model(rebuild=true) -%}
  {% do persist_docs(target_relation, model) %}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}
