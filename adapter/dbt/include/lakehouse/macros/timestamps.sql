{#- dbt's deprecated timestamp macros. Their defaults cast with `::`, which
    Spark SQL does not parse. Spark's timestamps are instants shown in the
    session's time zone; the UTC one shows the UTC wall clock instead. -#}
{% macro lakehouse__current_timestamp_backcompat() -%}
  current_timestamp()
{%- endmacro %}

{% macro lakehouse__current_timestamp_in_utc_backcompat() -%}
  to_utc_timestamp(current_timestamp(), current_timezone())
{%- endmacro %}
