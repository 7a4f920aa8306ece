{#- Overrides of dbt-spark's DDL helpers. Each says why it differs. -#}

{#- Models are Hudi tables unless they say otherwise; seeds stay plain parquet
    (small reference data that is replaced whole, with no keys to merge on). -#}
{% macro lakehouse_file_format() -%}
  {%- set default = 'parquet' if model is defined and model.resource_type == 'seed' else 'hudi' -%}
  {{- return(config.get('file_format', default)) -}}
{%- endmacro %}

{% macro lakehouse__file_format_clause() -%}
  using {{ lakehouse_file_format() }}
{%- endmacro %}

{#- A format's CREATE options are its own (options_clause: Hudi's come from
    its typed config, never from raw strings); other formats' from dbt-spark's
    `options`, as literals. -#}
{% macro lakehouse__options_clause() -%}
  {{ return(lakehouse_format_macro(lakehouse_file_format(), 'options_clause')()) }}
{%- endmacro %}

{% macro lakehouse_default__options_clause() -%}
  {%- if config.get('options') is not none %}
  options (
    {%- for key, value in config.get('options').items() %}
    {{ lakehouse_string_literal(key) }} = {{ lakehouse_string_literal(value) }}{{ "," if not loop.last }}
    {%- endfor %}
  )
  {%- endif -%}
{%- endmacro %}

{#- A Spark SQL string literal: backslashes and quotes escaped, so a config
    value can never end the string early. `${` is written `$\{` (read back as
    `${`): Spark would otherwise replace `${env:NAME}` or `${setting}` in it
    with a secret when variable substitution is on (the adapter turns it off). -#}
{% macro lakehouse_string_literal(value) -%}
  '{{ (value | string).replace('\\', '\\\\').replace("'", "\\'").replace('${', '$\\{') }}'
{%- endmacro %}

{#- A backquoted Spark identifier (a column, a SET key or value): taken
    verbatim, a doubled backtick standing for one. adapter.quote does not
    double them, so a name holding a backtick would end the quote early. -#}
{% macro lakehouse_backquoted(text) -%}
  `{{ (text | string).replace('`', '``') }}`
{%- endmacro %}

{#- dbt-spark's clauses below wrote config values between quotes without
    escaping them (a quote or a trailing backslash ended the string early);
    these write them as literals and identifiers. -#}
{% macro lakehouse__comment_clause() -%}
  {%- set persist_docs = config.get('persist_docs', {}) -%}
  {%- if persist_docs is mapping -%}
    {%- if persist_docs.get('relation', false) %}
  comment {{ lakehouse_string_literal(model.description) }}
    {%- endif -%}
  {%- elif persist_docs -%}
    {{ exceptions.raise_compiler_error("Invalid value provided for 'persist_docs'. Expected dict but got value: " ~ persist_docs) }}
  {%- endif -%}
{%- endmacro %}

{% macro lakehouse__location_clause() -%}
  {%- if config.get('location_root') is not none %}
  location {{ lakehouse_string_literal(lakehouse_model_location()) }}
  {%- endif -%}
{%- endmacro %}

{#- The folder location_root gives the model's table: <location_root>/<alias>. -#}
{% macro lakehouse_model_location() -%}
  {%- set location_root = config.get('location_root', validator=validation.any[basestring]) -%}
  {{- return(location_root ~ '/' ~ model['alias']) -}}
{%- endmacro %}

{% macro lakehouse__tblproperties_clause() -%}
  {%- set tblproperties = config.get('tblproperties') -%}
  {%- if tblproperties is not none %}
  tblproperties (
    {%- for key, value in tblproperties.items() %}
    {{ lakehouse_string_literal(key) }} = {{ lakehouse_string_literal(value) }}{{ "," if not loop.last }}
    {%- endfor %}
  )
  {%- endif -%}
{%- endmacro %}

{% macro lakehouse__partition_cols(label, required=false) -%}
  {%- set cols = config.get('partition_by', validator=validation.any[list, basestring]) -%}
  {%- if cols is not none %}
    {%- set cols = [cols] if cols is string else cols %}
  {{ label }} ({% for col in cols %}{{ lakehouse_backquoted(col) }}{{ ", " if not loop.last }}{% endfor %})
  {%- endif -%}
{%- endmacro %}

{#- The comment of a view's column (dbt-spark's create_view_as calls this by name). -#}
{% macro get_column_comment_sql(column_name, column_dict) -%}
  {{ lakehouse_backquoted(column_name) }}
  {%- if column_name in column_dict and column_dict[column_name]["description"] %} comment {{ lakehouse_string_literal(column_dict[column_name]["description"]) }}
  {%- endif %}
{%- endmacro %}

{#- A dropped Hudi table must take its files with it: a later CREATE at the same
    location would otherwise pick up the old .hoodie/ and its settings. -#}
{% macro lakehouse__drop_relation(relation) -%}
  {% call statement('drop_relation', auto_begin=False) -%}
    {%- if relation.type == 'view' %}
    drop view if exists {{ relation }}
    {%- else %}
    drop table if exists {{ relation }} purge
    {%- endif %}
  {%- endcall %}
{%- endmacro %}

{#- Hudi takes new columns in place, and drops one through its schema
    evolution on read: the ALTER needs hoodie.schema.on.read.enable, and Hudi
    1.2 validates it as a write that lacks the column, so it also needs
    hoodie.datasource.write.schema.allow.auto.evolution.column.drop (without
    it the ALTER fails, "Fields missing from incoming schema"). Both are set
    for the ALTER only: later writes and reads, on this connection or any
    other, need neither. Key, precombine and partition columns never get here
    (a model must output them). -#}
{% macro lakehouse__alter_relation_add_remove_columns(relation, add_columns, remove_columns) -%}
  {%- if remove_columns -%}
    {%- do lakehouse_format_macro(lakehouse_file_format(), 'check_column_drop')(relation, remove_columns) -%}
  {%- endif -%}
  {%- if remove_columns -%}
    {%- do adapter.replace_write_settings({
          'hoodie.schema.on.read.enable': 'true',
          'hoodie.datasource.write.schema.allow.auto.evolution.column.drop': 'true'}) -%}
    {%- call statement('drop_columns') -%}
      alter table {{ relation }} drop columns (
        {%- for column in remove_columns %}
        {{ lakehouse_backquoted(column.name) }}{{ "," if not loop.last }}
        {%- endfor %}
      )
    {%- endcall -%}
    {%- do adapter.clear_write_settings() -%}
  {%- endif -%}
  {%- if add_columns -%}
    {%- call statement('add_columns') -%}
      alter table {{ relation }} add columns (
        {%- for column in add_columns %}
        {{ lakehouse_backquoted(column.name) }} {{ column.data_type }}{{ "," if not loop.last }}
        {%- endfor %}
      )
    {%- endcall -%}
  {%- endif -%}
{%- endmacro %}
