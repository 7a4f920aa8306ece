{#- Column comments for persist_docs. dbt-spark's version decides on
    config.get('file_format'), which is empty for a model that takes the
    adapter's default format, so a Hudi model's columns got no comments: decide
    on the format the model is written in. -#}
{% macro lakehouse__alter_column_comment(relation, column_dict) -%}
  {%- if lakehouse_file_format() in adapter.table_formats() -%}
    {%- for column_name in column_dict -%}
      {%- set column = column_dict[column_name] -%}
      {%- set name = adapter.quote(column_name) if column['quote'] else column_name -%}
      {%- call statement('alter_column_comment_' ~ loop.index) -%}
        alter table {{ relation }} change column {{ name }} comment {{ lakehouse_string_literal(column['description']) }}
      {%- endcall -%}
    {%- endfor -%}
  {%- endif -%}
{%- endmacro %}
