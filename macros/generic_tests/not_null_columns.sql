{#- Passes when none of `columns` is null in any row of the model: the
    not_null test for many columns at once. Every data test is a query with a
    fixed cost of its own (planning, listing the table's files, a Spark job),
    so one scan for all the columns of a model costs about what one not_null
    test does, where a test per column costs that many times over. Each row
    stands or falls on its own, so with the var lakehouse_test_scope: changed
    it checks only the rows this run wrote (meta below). Fails with one row
    per row that has a null, naming its null columns. -#}

-- sqlfluff:exclude_rules:LT02
{#- (LT02: sqlfluff misplaces the indents of a config() and a loop inside
    a test block.) -#}

{% test not_null_columns(model, columns) %}

{%- do config(meta={'lakehouse_test_scope': 'rows'}) %}
{%- set checked_columns = columns
    if columns is not string and columns
    else exceptions.raise_compiler_error(
        "not_null_columns: set columns to a list of column names, "
        ~ "e.g. [event_id, event_time]; got " ~ columns ~ "."
    ) %}

with

checked as (

    select
        concat_ws(
            ', '
            {%- for column in checked_columns %},
            if({{ column }} is null, '{{ column }}', null)
            {%- endfor %}
        ) as null_columns
    from {{ model }}

)

select null_columns
from checked
where null_columns != ''

{% endtest %}
