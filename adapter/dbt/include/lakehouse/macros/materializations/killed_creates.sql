{#- Before a model's table is created where the catalog has none: what a run
    killed while it created the table left there is removed; committed data
    stops the run with a message (the adapter's writes/killed_creates.py). A table
    at a location_root folder is external: the formats take over what is
    there, so it is left to them. `replaces`: the create is a CREATE OR
    REPLACE. -#}
{% macro lakehouse_clear_killed_create(relation, replaces) -%}
  {%- if config.get('location_root') is none -%}
    {%- do adapter.clear_killed_create(relation, lakehouse_file_format(), replaces) -%}
  {%- endif -%}
{%- endmacro %}
