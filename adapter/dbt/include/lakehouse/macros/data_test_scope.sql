{#- Data tests scoped to what this run wrote, with the var
    lakehouse_test_scope: changed (see the adapter's data_tests/scope.py): a generic
    test of a Hudi model this invocation wrote reads only the rows it wrote
    (row tests) or the rows sharing their keys (key tests); so does a test of
    a model declaring meta lakehouse_rows_from, by its upstream's writes.
    Otherwise, and by default, dbt's own behaviour: the whole relation,
    filtered by the test's `where` config. -#}
{% macro lakehouse__get_where_subquery(relation) -%}
  {%- set where = config.get('where', '') -%}
  {%- set scope = var('lakehouse_test_scope', 'full') -%}
  {%- set tested = graph.nodes.get(model.attached_node) if execute and scope != 'full' and model.attached_node else none -%}
  {%- set nodes = graph.nodes if tested else none -%}
  {%- set scoped = adapter.test_scope_relation(relation, model, where, scope, tested, nodes) -%}
  {%- if scoped -%}
    {%- do return(scoped) -%}
  {%- elif where -%}
    {%- do return('(select * from ' ~ relation ~ ' where ' ~ where ~ ') dbt_subquery') -%}
  {%- else -%}
    {%- do return(relation) -%}
  {%- endif -%}
{%- endmacro %}


{#- Called by the Hudi materializations before they write. -#}
{% macro lakehouse_note_write_start(existing_relation) -%}
  {%- do adapter.note_write_start(this, existing_relation, var('lakehouse_test_scope', 'full')) -%}
{%- endmacro %}
