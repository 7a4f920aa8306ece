{#- The rows of a Hudi table that this run wrote, for a singular test that
    checks each row on its own and says so with
    config(meta={'lakehouse_test_scope': 'rows'}): with the var
    lakehouse_test_scope: changed, an incremental read of the run's commits to
    the table (the adapter's test_scope_relation, as for not_null); otherwise,
    or when the run did not write it, the whole table. -#}
{% macro written_rows(relation) %}
    {%- set scope = var('lakehouse_test_scope', 'full') -%}
    {%- set scoped = adapter.test_scope_relation(relation, model, '', scope) if execute else none -%}
    {{- scoped or relation -}}
{% endmacro %}
