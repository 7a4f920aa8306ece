{#- What a change read reads (lake_changes, lake_changed_keys,
    lake_signed_changes): the relations of a planned range, from Hudi's
    incremental and CDC queries. change_reads/queries.py decides which one a
    range needs (empty, staged, whole table, checked against the snapshot);
    these macros only say it in Spark SQL. Define a macro of the same name in
    your project to change one; it gets its arguments only, and may call the
    other macros of this file. -#}

{#- Hudi's incremental (latest_state) or CDC (cdc) query of the commits that
    completed after `begin` (exclusive; 'earliest' for all), through `end`
    (inclusive; none: the latest). -#}
{% macro lakehouse__table_changes(table, mode, begin, end=none) -%}
hudi_table_changes('{{ table }}', '{{ mode }}', '{{ begin }}'{% if end is not none %}, '{{ end }}'{% endif %})
{%- endmacro %}

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

{#- The rows of `changes` that are the table's current records: the same
    record key, partition and commit time in its snapshot. With the table's
    partition columns, the snapshot's side reads the partitions the changes
    touch only (a struct, so that a null partition value matches too). -#}
{% macro lakehouse__current_records(table, changes, partition_columns=[]) -%}
{%- set keys = ['_hoodie_record_key', '_hoodie_partition_path', '_hoodie_commit_time'] -%}
(select changes.* from {{ changes }} as changes left semi join (select {{ keys | join(', ') }} from {{ table }}
{%- if partition_columns %}
{%- set value -%}struct({% for column in partition_columns %}`{{ column }}`{% if not loop.last %}, {% endif %}{% endfor %}){%- endset %} where array_contains((select collect_set({{ value }}) from {{ changes }}), {{ value }})
{%- endif -%}
) as current on {% for key in keys %}changes.{{ key }} = current.{{ key }}{% if not loop.last %} and {% endif %}{% endfor %})
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

{#- A full CDC read: every current record of the table as an insert, its
    `columns` ((name, type) pairs) as the after image. -#}
{% macro lakehouse__snapshot_as_cdc_inserts(table, columns) -%}
(select 'i' as op, _hoodie_commit_time as ts_ms, cast(null as string) as before, to_json(named_struct(
{%- for name, data_type in columns %}'{{ name }}', {{ lakehouse__cdc_image_json(name, data_type) }}{% if not loop.last %}, {% endif %}{% endfor -%}
)) as after from {{ table }})
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

{#- An Iceberg table's snapshots (table: catalog.schema.table), for change
    reads of it and by it: id, parent, operation, the live delete files, the
    write-audit-publish id it was written or published under, and whether it
    is the current snapshot or one of its ancestors. -#}
{% macro lakehouse__iceberg_ancestry(table) -%}
select s.snapshot_id, s.parent_id, s.operation, s.summary['total-delete-files'] as delete_files,
  s.summary['wap.id'] as wap_id, s.summary['published-wap-id'] as published_wap_id,
  coalesce(h.is_current_ancestor, false) as is_current_ancestor
from {{ table }}.snapshots as s
left join (select snapshot_id, bool_or(is_current_ancestor) as is_current_ancestor from {{ table }}.history group by snapshot_id) as h
  on s.snapshot_id = h.snapshot_id
{%- endmacro %}

{#- Iceberg's changelog of the snapshots after `begin` through `end` of
    `table` (schema.table in `catalog`) as the session's temporary view
    `view`: the net change of each row with `net_changes`, else each change,
    an update's delete and insert paired by `key` (UPDATE_BEFORE,
    UPDATE_AFTER). Rows a copy-on-write rewrite carried over are removed. -#}
{% macro lakehouse__iceberg_changelog_view(catalog, table, view, begin, end, net_changes, key) -%}
call {{ catalog }}.system.create_changelog_view(
  table => '{{ table }}',
  changelog_view => '{{ view }}',
  options => map('start-snapshot-id', '{{ begin }}', 'end-snapshot-id', '{{ end }}')
  {%- if net_changes %}, net_changes => true
  {%- elif key %}, compute_updates => true, identifier_columns => array({% for column in key %}'{{ column }}'{% if not loop.last %}, {% endif %}{% endfor %})
  {%- endif %})
{%- endmacro %}

{#- An Iceberg table as of one snapshot: Iceberg's snapshot selector in the
    table's name (Spark's `VERSION AS OF` is left unresolved for it once
    Hudi's session extension is loaded). -#}
{% macro lakehouse__iceberg_as_of(table, snapshot_id) -%}
(select * from {{ table }}.snapshot_id_{{ snapshot_id }})
{%- endmacro %}

{#- The latest state of each row an Iceberg range changed: the rows its net
    changes insert (an update's new image; a delete inserts none), as the
    table's `columns`. -#}
{% macro lakehouse__iceberg_latest_state(view, columns) -%}
(select {% for name, _ in columns %}`{{ name }}`{% if not loop.last %}, {% endif %}{% endfor %} from {{ view }} where _change_type = 'INSERT')
{%- endmacro %}

{#- An Iceberg range's changes as Hudi's CDC query gives them (op, ts_ms,
    before, after; the images as lakehouse__cdc_image_json writes them): an
    insert, a delete, an update with both images. ts_ms is the id of the
    snapshot that made the change. -#}
{% macro lakehouse__iceberg_cdc_rows(view, columns, key) -%}
{%- set image = lakehouse__cdc_image -%}
(select 'i' as op, cast(c._commit_snapshot_id as string) as ts_ms, cast(null as string) as before, {{ image('c', columns) }} as after from {{ view }} as c where c._change_type = 'INSERT'
union all
select 'd' as op, cast(c._commit_snapshot_id as string) as ts_ms, {{ image('c', columns) }} as before, cast(null as string) as after from {{ view }} as c where c._change_type = 'DELETE'
{%- if key %}
union all
select 'u' as op, cast(b._commit_snapshot_id as string) as ts_ms, {{ image('b', columns) }} as before, {{ image('a', columns) }} as after
from {{ view }} as b join {{ view }} as a
  on b._change_ordinal = a._change_ordinal{% for column in key %} and b.`{{ column }}` <=> a.`{{ column }}`{% endfor %}
where b._change_type = 'UPDATE_BEFORE' and a._change_type = 'UPDATE_AFTER'
{%- endif %})
{%- endmacro %}

{#- The `columns` ((name, type) pairs) of the row `alias` as a CDC image. -#}
{% macro lakehouse__cdc_image(alias, columns) -%}
to_json(named_struct({% for name, data_type in columns %}'{{ name }}', {{ lakehouse__cdc_image_json(alias ~ '.`' ~ name ~ '`', data_type) }}{% if not loop.last %}, {% endif %}{% endfor %}))
{%- endmacro %}

{#- An Iceberg table as of one snapshot as CDC inserts (a full cdc read). -#}
{% macro lakehouse__iceberg_snapshot_as_cdc_inserts(table, snapshot_id, columns) -%}
(select 'i' as op, '{{ snapshot_id }}' as ts_ms, cast(null as string) as before, {{ lakehouse__cdc_image('t', columns) }} as after from {{ table }}.snapshot_id_{{ snapshot_id }} as t)
{%- endmacro %}

{#- A Delta table as of one version: Delta's path selector (`location@v<N>`;
    Spark's `VERSION AS OF` is left unresolved for Delta tables too once
    Hudi's session extension is loaded). -#}
{% macro lakehouse__delta_as_of(location, version) -%}
(select * from delta.`{{ location }}@v{{ version }}`)
{%- endmacro %}

{#- A Delta table's Change Data Feed from version `first` through `last`
    (both inclusive): its rows with _change_type (insert, delete,
    update_preimage, update_postimage), _commit_version, _commit_timestamp.
    By the table's path, not its name: Spark resolves each table name once
    per query, whatever options come with it, so in a model that also
    selects from the upstream by name, `table_changes('<name>', ...)` would
    read the table itself. -#}
{% macro lakehouse__delta_table_changes(location, first, last) -%}
table_changes_by_path('{{ location }}', {{ first }}, {{ last }})
{%- endmacro %}

{#- The latest state of each row a Delta range changed, as the table's
    `columns`: per `key`, its last change if that is an insert or an
    update's new image (a key whose last change deletes it has none; within
    a version a new image follows a before image or delete); without a key,
    every insert and new image. -#}
{% macro lakehouse__delta_latest_state(location, first, last, columns, key) -%}
{%- set names -%}{% for name, _ in columns %}`{{ name }}`{% if not loop.last %}, {% endif %}{% endfor %}{%- endset -%}
{%- set changes = lakehouse__delta_table_changes(location, first, last) -%}
{%- if key -%}
(select {{ names }} from (select *, row_number() over (partition by {% for column in key %}`{{ column }}`{% if not loop.last %}, {% endif %}{% endfor %} order by _commit_version desc, case when _change_type in ('insert', 'update_postimage') then 1 else 0 end desc) as _lakehouse_last from {{ changes }}) as c where _lakehouse_last = 1 and _change_type in ('insert', 'update_postimage'))
{%- else -%}
(select {{ names }} from {{ changes }} where _change_type in ('insert', 'update_postimage'))
{%- endif -%}
{%- endmacro %}

{#- A Delta range's changes as Hudi's CDC query gives them (op, ts_ms,
    before, after): an insert, a delete, an update with both images paired
    by `key` in its version (without a key, an update is a delete and an
    insert). ts_ms is the version that made the change. -#}
{% macro lakehouse__delta_cdc_rows(location, first, last, columns, key) -%}
{%- set image = lakehouse__cdc_image -%}
{%- set changes = lakehouse__delta_table_changes(location, first, last) -%}
(select 'i' as op, cast(c._commit_version as string) as ts_ms, cast(null as string) as before, {{ image('c', columns) }} as after from {{ changes }} as c where c._change_type = 'insert'{% if not key %} or c._change_type = 'update_postimage'{% endif %}
union all
select 'd' as op, cast(c._commit_version as string) as ts_ms, {{ image('c', columns) }} as before, cast(null as string) as after from {{ changes }} as c where c._change_type = 'delete'{% if not key %} or c._change_type = 'update_preimage'{% endif %}
{%- if key %}
union all
select 'u' as op, cast(b._commit_version as string) as ts_ms, {{ image('b', columns) }} as before, {{ image('a', columns) }} as after
from {{ changes }} as b join {{ changes }} as a
  on b._commit_version = a._commit_version{% for column in key %} and b.`{{ column }}` <=> a.`{{ column }}`{% endfor %}
where b._change_type = 'update_preimage' and a._change_type = 'update_postimage'
{%- endif %})
{%- endmacro %}

{#- A Delta table as of one version as CDC inserts (a full cdc read). -#}
{% macro lakehouse__delta_snapshot_as_cdc_inserts(location, version, columns) -%}
(select 'i' as op, '{{ version }}' as ts_ms, cast(null as string) as before, {{ lakehouse__cdc_image('t', columns) }} as after from delta.`{{ location }}@v{{ version }}` as t)
{%- endmacro %}
