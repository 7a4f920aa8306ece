{#- Passes when no two rows share the same values of `combination_of_columns`
    (a grain check, e.g. one row per event_date and account_id). Fails with one
    row per duplicated combination and how many rows carry it. -#}

{% test unique_combination_of_columns(model, combination_of_columns) %}

{%- set columns_csv = combination_of_columns | join(', ')
    if combination_of_columns is not string and combination_of_columns
    else exceptions.raise_compiler_error(
        "unique_combination_of_columns: set combination_of_columns to a "
        ~ "list of column names, e.g. [event_date, account_id]; got "
        ~ combination_of_columns ~ "."
    ) %}

with

validation_errors as (

    select
        {{ combination_of_columns | join(',\n        ') }},
        count(*) as n_records
    from {{ model }}
    group by {{ columns_csv }}
    having count(*) > 1

)

select * from validation_errors

{% endtest %}
