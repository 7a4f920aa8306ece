{#- The warehouse's "now": the time of the newest billed event, as_of_time.
    The newest day with events is read from dws_spend_daily (a small table,
    which keeps only days with events, built from DWD in the same run), and
    a scalar subquery on the partition column lets Spark read that one day's
    files of dwd_billing_events, rather than the whole table, for the max. -#}
{% macro billing_clock() %}
    select max(dwd.event_time) as as_of_time
    from {{ ref('dwd_billing_events') }} as dwd
    where dwd.event_date = (
        select max(daily.event_date) as newest_day
        from {{ ref('dws_spend_daily') }} as daily
    )
{% endmacro %}
