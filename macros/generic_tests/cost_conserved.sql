{#- Passes when the sum of `column_name` in the tested model equals the sum of
    `compare_column` in `compare_model`: money is neither created nor lost
    between two layers. `compare_row_condition` (a SQL predicate, optional,
    default all rows) restricts the compare model to the rows the tested
    model is meant to cover; the test's own `where` config does the same for
    the tested model. `scope_by` (columns both models have, e.g. [event_date]):
    with the var lakehouse_test_scope: changed, both sums are taken over just
    the groups whose rows this run wrote in either model (the adapter's
    changed_values_sql), and over everything when that is not known. With one
    scope_by column the groups come from a scalar subquery
    (in_touched_partitions), so a table partitioned by it reads only those
    partitions. Fails with one row holding both sums and their difference. -#}

{% test cost_conserved(
    model,
    column_name,
    compare_model,
    compare_column,
    compare_row_condition=none,
    scope_by=none
) %}

{%- set touched = adapter.changed_values_sql(
        [model, compare_model], scope_by, var('lakehouse_test_scope', 'full')
    ) if scope_by else none %}
{%- set in_touched = in_touched_partitions([model, compare_model], scope_by[0])
    if touched and scope_by | length == 1
    else '(' ~ (scope_by or []) | join(', ') ~ ') in (' ~ touched ~ ')' %}
{#- Each filter starts with `true`: Spark reads `from t where (x)` as the
    alias `where` with a column list. #}
{%- set scoped = ' and ' ~ in_touched if touched else '' %}
{%- set model_filter = 'true' ~ scoped %}
{%- set compare_filter = 'true'
    ~ (' and (' ~ compare_row_condition ~ ')' if compare_row_condition else '') ~ scoped %}

with

model_total as (

    select coalesce(sum({{ column_name }}), 0) as total_micros
    from {{ model }}
    where {{ model_filter }}

),

compare_total as (

    select coalesce(sum({{ compare_column }}), 0) as total_micros
    from {{ compare_model }}
    where {{ compare_filter }}

),

validation_errors as (

    select
        model_total.total_micros as model_total_micros,
        compare_total.total_micros as compare_total_micros,
        model_total.total_micros
        - compare_total.total_micros as difference_micros
    from model_total
    cross join compare_total
    where model_total.total_micros != compare_total.total_micros

)

select * from validation_errors

{% endtest %}
