{#- A connection's SQL settings on a Spark Thrift server, where they can only
    be read and changed by statements (the embedded and Spark Connect sessions
    change their configuration directly). A key or value is taken verbatim
    between backquotes: unquoted, Spark ends a value at a `;` and refuses a
    key outside [A-Za-z0-9_.:]. A statement macro gets its arguments only. -#}

{#- Every setting with a value: rows of (key, value). -#}
{% macro lakehouse__show_settings() -%}
set
{%- endmacro %}

{#- Unquoted: Spark reads `set <key>` only for a bare key ([A-Za-z0-9_.:]),
    as every key the adapter reads is. -#}
{% macro lakehouse__show_setting(key) -%}
set {{ key }}
{%- endmacro %}

{% macro lakehouse__set_setting(key, value) -%}
set `{{ key | string | replace('`', '``') }}` = `{{ value | string | replace('`', '``') }}`
{%- endmacro %}

{% macro lakehouse__reset_setting(key) -%}
reset `{{ key | string | replace('`', '``') }}`
{%- endmacro %}
