{#- Iceberg's part of the MERGE write path (materializations/merge_write.sql):
    what a write consumed is recorded in the snapshot that writes its rows.
    An incremental write is staged under a write-audit-publish id that holds
    the record (in the snapshot's summary), then published; a table built
    whole keeps it in the table properties its CREATE OR REPLACE sets (the
    adapter's formats/iceberg/history.py reads both). -#}

{% macro lakehouse_iceberg__start_recorded_write(relation, table_props, record) -%}
  {%- if record and (table_props or {}).get('write.wap.enabled') != 'true' -%}
    {%- do lakehouse_update_table_properties(relation, {'write.wap.enabled': 'true'}) -%}
  {%- endif -%}
  {%- do lakehouse_iceberg_wap_id(record) -%}
{%- endmacro %}

{% macro lakehouse_iceberg__finish_recorded_write(relation, record) -%}
  {%- if record -%}
    {%- do lakehouse_iceberg_wap_id(none) -%}
    {%- call statement('publish_changes') -%}
      call {{ adapter.iceberg_catalog(relation) }}.system.publish_changes(table => {{ lakehouse_string_literal(relation.schema ~ '.' ~ relation.identifier) }}, wap_id => {{ lakehouse_string_literal(record) }})
    {%- endcall -%}
  {%- endif -%}
{%- endmacro %}

{#- Writes of this session to a table with write.wap.enabled are staged
    under `wap_id` (none: written as usual). Quoted: it may hold a `;`
    (what a model was built from); it holds no backquote. -#}
{% macro lakehouse_iceberg_wap_id(wap_id) -%}
  {%- call statement('wap_id', auto_begin=False) -%}
    {%- if wap_id %}
    set `spark.wap.id` = `{{ wap_id }}`
    {%- else %}
    reset spark.wap.id
    {%- endif %}
  {%- endcall -%}
{%- endmacro %}
