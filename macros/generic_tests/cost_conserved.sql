{#- Passes when the sum of `column_name` in the tested model equals the sum of
    `compare_column` in `compare_model`: money is neither created nor lost
    between two layers. `compare_row_condition` (a SQL predicate, optional,
    default all rows) restricts the compare model to the rows the tested
    model is meant to cover; the test's own `where` config does the same for
    the tested model. Fails with one row holding both sums and their
    difference. -#}

{% test cost_conserved(
    model,
    column_name,
    compare_model,
    compare_column,
    compare_row_condition=none
) %}

with

model_total as (

    select coalesce(sum({{ column_name }}), 0) as total_micros
    from {{ model }}

),

compare_total as (

    select coalesce(sum({{ compare_column }}), 0) as total_micros
    from {{ compare_model }}
    where {{ compare_row_condition or 'true' }}

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
