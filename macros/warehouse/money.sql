{#- Integer micros of the billing currency (1,000,000 micros = 1 currency
    unit) as currency units, for display: `micros` (a bigint column or sum)
    cast to decimal(20, 0), which holds any bigint exactly, divided by
    1,000,000 (exact: Spark keeps 11 decimals), then rounded half up to
    `scale` decimals in a decimal(18, scale). The *_micros columns stay the
    exact figures; totals are summed from them, never from this. -#}

{% macro micros_to_currency(micros, scale=2) -%}
    cast(cast({{ micros }} as decimal(20, 0)) / 1000000 as decimal(18, {{ scale }}))
{%- endmacro %}
