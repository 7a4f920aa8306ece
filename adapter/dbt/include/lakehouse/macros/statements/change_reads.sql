{#- What a change read reads (lake_changes, lake_changed_keys,
    lake_signed_changes): the relations of a planned range. change_reads/queries.py
    decides which one a range needs (empty, staged, whole table, checked
    against the snapshot); these macros only say it in Spark SQL: here what
    every format shares (the CDC images: Hudi's CDC query's shape, which the
    other formats' changes are read into), each format's own queries in
    macros/formats/<format>/statements.sql. Define a macro of the same name in
    your project to change one; it gets its arguments only, and may call the
    other macros of this file. -#}

{#- Every row of a relation (a range's scratch table, or a table-valued query). -#}
{% macro lakehouse__all_rows(relation) -%}
(select * from {{ relation }})
{%- endmacro %}

{#- No row, with the relation's columns. -#}
{% macro lakehouse__no_rows(relation) -%}
(select * from {{ relation }} where false)
{%- endmacro %}

{#- No row, with the columns of Hudi's CDC query (op, ts_ms, before, after). -#}
{% macro lakehouse__no_cdc_rows() -%}
(select cast(null as string) as op, cast(null as string) as ts_ms, cast(null as string) as before, cast(null as string) as after where false)
{%- endmacro %}

{#- A column as Hudi's CDC images write it: dates as days since the epoch,
    timestamps as microseconds (the inverse of lakehouse__cdc_image_value). -#}
{% macro lakehouse__cdc_image_json(column, data_type) -%}
{%- set kind = data_type | lower -%}
{%- if kind == 'date' -%}
datediff({{ column }}, date'1970-01-01')
{%- elif kind.startswith('timestamp') -%}
unix_micros({{ column }})
{%- else -%}
{{ column }}
{%- endif -%}
{%- endmacro %}

{#- A typed field of a parsed CDC image (`image`, a struct of its fields as text). -#}
{% macro lakehouse__cdc_image_value(image, field, data_type) -%}
{%- set kind = data_type | lower -%}
{%- set raw = image ~ '.`' ~ field ~ '`' -%}
{%- if kind == 'date' -%}
date_add(date'1970-01-01', cast({{ raw }} as int))
{%- elif kind.startswith('timestamp') -%}
timestamp_micros(cast({{ raw }} as bigint))
{%- else -%}
cast({{ raw }} as {{ data_type }})
{%- endif -%}
{%- endmacro %}

{#- The snapshot as signed rows: every record once, +1. -#}
{% macro lakehouse__signed_snapshot(table, columns) -%}
(select 1 as _sign, {{ columns | join(', ') }} from {{ table }})
{%- endmacro %}

{#- CDC rows (`relation`) as signed rows of `columns` ((name, the field of
    the image, type) triples): each after image +1, each before image -1.
    Each image is parsed once, into the fields asked for (as text, typed
    after). A missing image is SQL NULL or, from some CDC reads (inserts of a
    merge-on-read delta commit), the JSON text 'null'. -#}
{% macro lakehouse__signed_images(relation, columns) -%}
{%- set fields = [] -%}
{%- for _, field, _ in columns if field not in fields -%}{%- do fields.append(field) -%}{%- endfor -%}
(
{%- for image, sign in [('after', 1), ('before', -1)] -%}
{%- if not loop.first %} union all {% endif -%}
select {{ sign }} as _sign, {% for name, field, data_type in columns %}{{ lakehouse__cdc_image_value('c.image', field, data_type) }} as {{ name }}{% if not loop.last %}, {% endif %}{% endfor %} from (select from_json(c.{{ image }}, '{% for field in fields %}`{{ field }}` string{% if not loop.last %}, {% endif %}{% endfor %}') as image from {{ relation }} as c where c.{{ image }} is not null and c.{{ image }} != 'null') as c
{%- endfor -%}
)
{%- endmacro %}

{#- The distinct values of `keys` among signed rows. -#}
{% macro lakehouse__distinct_keys(signed, keys) -%}
(select distinct {{ keys | join(', ') }} from {{ signed }} as images)
{%- endmacro %}

{#- The `columns` ((name, type) pairs) of the row `alias` as a CDC image. -#}
{% macro lakehouse__cdc_image(alias, columns) -%}
to_json(named_struct({% for name, data_type in columns %}'{{ name }}', {{ lakehouse__cdc_image_json(alias ~ '.`' ~ name ~ '`', data_type) }}{% if not loop.last %}, {% endif %}{% endfor %}))
{%- endmacro %}

