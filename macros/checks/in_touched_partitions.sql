{#- A predicate for a reconciliation that reads partitioned tables: with the
    var lakehouse_test_scope: changed, it keeps the partitions (values of
    `column`) that this run wrote in any of `relations` (the adapter's
    changed_values_sql); otherwise, or when a relation was not written by this
    run, `true`. The values come from a scalar subquery, which Spark evaluates
    before the scan: a filter on the partition column then prunes the
    partitions read (an `in (select ...)` would read them all). `expression`
    (default: `column`) is what is compared with those values, for a table
    that derives the column instead of storing it. -#}
{% macro in_touched_partitions(relations, column, expression=none) %}
    {%- set touched = adapter.changed_values_sql(
        relations, [column], var('lakehouse_test_scope', 'full')
    ) -%}
    {%- if touched -%}
        array_contains(
            (
                select collect_set(touched.{{ column }}) as touched_values
                from ({{ touched }}) as touched
            ),
            {{ expression or column }}
        )
    {%- else -%}
        true
    {%- endif -%}
{% endmacro %}
