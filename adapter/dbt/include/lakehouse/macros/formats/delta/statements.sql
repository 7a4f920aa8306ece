{#- Delta's statements: its history, change reads and table services (the
    adapter's formats/delta/ reads their rows). As every statement macro:
    define one of the same name in your project to change it; it gets its
    arguments only. -#}

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

{#- A Delta table's files and bytes now (one row: numFiles, sizeInBytes, ...). -#}
{% macro lakehouse__delta_detail(table) -%}
describe detail {{ table }}
{%- endmacro %}

{#- A Delta table's commits, newest first (version, timestamp, operation, ...). -#}
{% macro lakehouse__delta_history(table) -%}
describe history {{ table }}
{%- endmacro %}

{#- Delta's compaction: small files bin-packed... -#}
{% macro lakehouse__delta_optimize(table) -%}
optimize {{ table }}
{%- endmacro %}

{#- ...and files with deletion vectors rewritten with the deletes applied. -#}
{% macro lakehouse__delta_purge(table) -%}
reorg table {{ table }} apply (purge)
{%- endmacro %}

{#- Delta's cleaning: files no version of the last `hours` reads are deleted. -#}
{% macro lakehouse__delta_vacuum(table, hours) -%}
vacuum {{ table }} retain {{ hours }} hours
{%- endmacro %}

{#- Delta's rollback: the table's current version becomes a copy of an earlier one. -#}
{% macro lakehouse__delta_restore(table, version) -%}
restore table {{ table }} to version as of {{ version }}
{%- endmacro %}

{#- A Delta table's latest versions, newest first (version, operation, ...):
    enough to find the latest that changed data past VACUUM's and runs'
    property commits. -#}
{% macro lakehouse__delta_latest_versions(table) -%}
describe history {{ table }} limit 10
{%- endmacro %}
