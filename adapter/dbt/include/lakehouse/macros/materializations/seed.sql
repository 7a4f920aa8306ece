{#- Seeds. dbt's seed materialization stays; these helpers differ from
    dbt-spark's in how the table is made and how the rows go in.

    dbt-spark inserts the CSV's values by position (`insert into t values
    (...)`), in the CSV's column order. A table's columns are not always in
    that order: Spark and Hudi put partition columns last. A seed partitioned
    by a date column then sent the next column's string into the date column,
    which Hudi's INSERT refuses (CANNOT_SAFELY_CAST STRING to DATE); on parquet
    the values could land in the wrong columns without an error when the types
    allowed it. So rows are inserted by name, in the table's own column order,
    each value cast to the type the table stores. dbt-spark's bindings also
    wrote an empty cell of a string column as the text 'None'; it is NULL here. -#}

{#- A Hudi seed is created like any Hudi table: its type, keys, partitioning
    and hoodie.* settings come from the typed config; an Iceberg or a Delta
    seed like such a model's table (its rows are inserted as the CSV has
    them). Other formats: dbt-spark. -#}
{% macro lakehouse__create_csv_table(model, agate_table) -%}
  {%- set fmt = lakehouse_file_format() -%}
  {%- if fmt not in adapter.table_formats() -%}
    {{ return(spark__create_csv_table(model, agate_table)) }}
  {%- endif -%}
  {%- set lake = adapter.table_config(model) -%}
  {%- set columns = lakehouse_seed_columns(model, agate_table) -%}
  {%- do lake.check_columns(columns | map(attribute='name') | list) -%}
  {%- do lakehouse_clear_killed_create(this, replaces=false) -%}
  {%- set sql = lakehouse_format_macro(fmt, 'create_table')(this, columns, lake) -%}
  {%- call statement('_') -%}
    {{ sql }}
  {%- endcall -%}
  {{ return(sql) }}
{%- endmacro %}


{#- Each CSV column with its type: the seed's column_types, else the one
    dbt infers from the values. -#}
{% macro lakehouse_seed_columns(model, agate_table) -%}
  {%- set overrides = model['config'].get('column_types', {}) -%}
  {%- set columns = [] -%}
  {%- for name in agate_table.column_names -%}
    {%- set inferred = adapter.convert_type(agate_table, loop.index0) -%}
    {%- do columns.append({'name': name | string, 'data_type': overrides.get(name, inferred)}) -%}
  {%- endfor -%}
  {{ return(columns) }}
{%- endmacro %}


{% macro lakehouse__load_csv_rows(model, agate_table) -%}
  {%- set table_columns = adapter.get_columns_in_relation(this) -%}
  {%- set csv_names = agate_table.column_names | map('string') | list -%}
  {%- set csv_lower = csv_names | map('lower') | list -%}
  {%- set fmt = lakehouse_file_format() -%}
  {%- set lake = adapter.table_config(model) if fmt in adapter.table_formats() else none -%}
  {%- if lake is not none -%}
    {#- A seed with a unique_key dedups by it; one without is a plain insert. -#}
    {%- do lakehouse_format_macro(fmt, 'start_write')(lake, lake.default_strategy) -%}
  {%- endif -%}
  {%- set statements = [] -%}
  {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
    {%- set sql -%}
      insert into {{ this.render() }}
      select
        {%- for col in table_columns %}
        {% if col.name | lower in csv_lower -%}
          cast(seed.{{ adapter.quote(csv_names[csv_lower.index(col.name | lower)]) }} as {{ col.data_type }})
        {%- else -%}
          cast(null as {{ col.data_type }})
        {%- endif %} as {{ col.quoted }}{{ "," if not loop.last }}
        {%- endfor %}
      from values
        {%- for row in chunk %}
        ({% for value in row %}{{ lakehouse_seed_literal(value) }}{{ ", " if not loop.last }}{% endfor %}){{ "," if not loop.last }}
        {%- endfor %}
      as seed({% for name in csv_names %}{{ adapter.quote(name) }}{{ ", " if not loop.last }}{% endfor %})
    {%- endset -%}
    {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
    {%- if loop.first -%}
      {%- do statements.append(sql) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if lake is not none -%}
    {%- do lakehouse_format_macro(fmt, 'finish_write')() -%}
  {%- endif -%}
  {{ return(statements[0]) }}
{%- endmacro %}


{#- One CSV value as SQL: NULL, or a string literal the insert casts to the
    column's type. Numbers are written out in full (no exponent), so a string
    cast reads them exactly into any numeric type. -#}
{% macro lakehouse_seed_literal(value) -%}
  {%- if value is none -%}
    null
  {%- elif value is number and value is not boolean -%}
    '{{ "{:f}".format(value) }}'
  {%- else -%}
    {{ lakehouse_string_literal(value) }}
  {%- endif -%}
{%- endmacro %}
