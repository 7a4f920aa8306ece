{#- The JSON type of a key's value in a line of a flat JSON object, told by the
    value's first character: from_json would read the number 123 into a string
    field as '123', and a string "5" into a number field as null, so the
    parsed struct alone cannot tell a retyped field from a good one. -#}

{% macro json_value_start(json_text, key) -%}
    regexp_extract({{ json_text }}, '"{{ key }}"\\s*:\\s*(.)', 1)
{%- endmacro %}


{#- True when the key's value is not of `json_type` ('string' or 'number');
    null is left to the not-null checks. -#}
{% macro json_is_wrong_type(json_text, key, json_type) -%}
    {%- if json_type == 'string' -%}
        {{ json_value_start(json_text, key) }} not in ('"', 'n')
    {%- else -%}
        {{ json_value_start(json_text, key) }} not rlike '^[-0-9n]$'
    {%- endif -%}
{%- endmacro %}
