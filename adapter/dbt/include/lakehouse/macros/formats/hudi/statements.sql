{#- Hudi's statements: its procedures over a table's timeline, commits,
    files and metadata table (the adapter's formats/hudi/ and lake/metadata.py
    read their rows). As every statement macro: define one of the same name in
    your project to change it; it gets its arguments only. -#}

{#- Compactions of a merge-on-read table (Hudi refuses them on copy-on-write). -#}
{% macro lakehouse__show_compaction(table) -%}
call show_compaction(table => '{{ table }}')
{%- endmacro %}

{#- The file groups of the latest file-system view. -#}
{% macro lakehouse__show_fsview_latest(table) -%}
call show_fsview_latest(table => '{{ table }}')
{%- endmacro %}

{#- Bytes under a folder: the table's files, timeline and metadata table. -#}
{% macro lakehouse__show_fs_path_detail(path) -%}
call show_fs_path_detail(path => '{{ path }}')
{%- endmacro %}

{#- Completed writes and table services, newest instant first. -#}
{% macro lakehouse__show_commits(table, limit) -%}
call show_commits(table => '{{ table }}', limit => {{ limit }})
{%- endmacro %}

{% macro lakehouse__show_cleans(table, limit) -%}
call show_cleans(table => '{{ table }}', limit => {{ limit }})
{%- endmacro %}

{#- One commit's extra metadata: every key, or the one named. -#}
{% macro lakehouse__show_commit_extra_metadata(table, instant, key=none) -%}
call show_commit_extra_metadata(table => '{{ table }}', instant_time => '{{ instant }}',
{%- if key is none %} limit => 1000{% else %} metadata_key => '{{ key }}'{% endif %})
{%- endmacro %}

{% macro lakehouse__show_commit_partitions(table, instant) -%}
call show_commit_partitions(table => '{{ table }}', instant_time => '{{ instant }}')
{%- endmacro %}

{#- The instants of a timeline by its path (a table's metadata table). -#}
{% macro lakehouse__show_timeline(path, limit) -%}
call show_timeline(path => '{{ path }}', limit => {{ limit }})
{%- endmacro %}

{% macro lakehouse__delete_metadata_table(table) -%}
call delete_metadata_table(table => '{{ table }}')
{%- endmacro %}

{#- Hudi's own properties of a table (hoodie.properties), beside the catalog's. -#}
{% macro lakehouse__show_hudi_table_properties(table, limit) -%}
call show_table_properties(table => '{{ table }}', limit => {{ limit }})
{%- endmacro %}

{#- Hudi's incremental (latest_state) or CDC (cdc) query of the commits that
    completed after `begin` (exclusive; 'earliest' for all), through `end`
    (inclusive; none: the latest). -#}
{% macro lakehouse__table_changes(table, mode, begin, end=none) -%}
hudi_table_changes('{{ table }}', '{{ mode }}', '{{ begin }}'{% if end is not none %}, '{{ end }}'{% endif %})
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

{#- A full CDC read: every current record of the table as an insert, its
    `columns` ((name, type) pairs) as the after image. -#}
{% macro lakehouse__snapshot_as_cdc_inserts(table, columns) -%}
(select 'i' as op, _hoodie_commit_time as ts_ms, cast(null as string) as before, to_json(named_struct(
{%- for name, data_type in columns %}'{{ name }}', {{ lakehouse__cdc_image_json(name, data_type) }}{% if not loop.last %}, {% endif %}{% endfor -%}
)) as after from {{ table }})
{%- endmacro %}
