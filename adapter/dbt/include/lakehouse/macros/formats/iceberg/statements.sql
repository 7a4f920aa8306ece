{#- Iceberg's statements: its snapshots, change reads and procedures (the
    adapter's formats/iceberg/ reads their rows). As every statement macro:
    define one of the same name in your project to change it; it gets its
    arguments only. -#}

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

{#- An Iceberg table as of one snapshot as CDC inserts (a full cdc read). -#}
{% macro lakehouse__iceberg_snapshot_as_cdc_inserts(table, snapshot_id, columns) -%}
(select 'i' as op, '{{ snapshot_id }}' as ts_ms, cast(null as string) as before, {{ lakehouse__cdc_image('t', columns) }} as after from {{ table }}.snapshot_id_{{ snapshot_id }} as t)
{%- endmacro %}

{#- An Iceberg table's snapshots, newest first, with their summaries'
    totals (the docs catalog's stats of an Iceberg table). -#}
{% macro lakehouse__iceberg_snapshot_stats(table) -%}
select snapshot_id, operation, committed_at,
  summary['total-data-files'] as `total-data-files`,
  summary['total-delete-files'] as `total-delete-files`,
  summary['total-files-size'] as `total-files-size`,
  summary['total-records'] as `total-records`
from {{ table }}.snapshots
order by committed_at desc
{%- endmacro %}

{#- An Iceberg table of Iceberg's own catalog with no snapshot, and its files. -#}
{% macro lakehouse__purge_iceberg_table(table) -%}
drop table {{ table }} purge
{%- endmacro %}

{#- An Iceberg table's snapshots (table: catalog.schema.table), for its
    compaction and cleaning triggers (formats/iceberg/services.py). -#}
{% macro lakehouse__iceberg_snapshots(table) -%}
select committed_at, operation from {{ table }}.snapshots
{%- endmacro %}

{#- Iceberg's compaction: data files with delete files rewritten with the
    deletes applied (and small ones bin-packed), then the position delete
    files left dangling removed. `table` is schema.table in `catalog`. -#}
{% macro lakehouse__iceberg_rewrite_data_files(catalog, table) -%}
call {{ catalog }}.system.rewrite_data_files(table => '{{ table }}', options => map('delete-file-threshold', '1', 'remove-dangling-deletes', 'true'))
{%- endmacro %}

{% macro lakehouse__iceberg_rewrite_position_deletes(catalog, table) -%}
call {{ catalog }}.system.rewrite_position_delete_files(table => '{{ table }}')
{%- endmacro %}

{#- Iceberg's cleaning: the snapshots older than `older_than` expire, but the
    latest `retain_last`; files only they used are deleted. -#}
{% macro lakehouse__iceberg_expire_snapshots(catalog, table, older_than, retain_last) -%}
call {{ catalog }}.system.expire_snapshots(table => '{{ table }}', older_than => timestamp '{{ older_than }}', retain_last => {{ retain_last }})
{%- endmacro %}

{#- Iceberg's rollback: the table's current snapshot becomes an earlier one. -#}
{% macro lakehouse__iceberg_rollback(catalog, table, snapshot_id) -%}
call {{ catalog }}.system.rollback_to_snapshot(table => '{{ table }}', snapshot_id => {{ snapshot_id }})
{%- endmacro %}
