{#- The JSON type of each key's value in a line of a flat JSON object, told by
    the value's first character: from_json would read the number 123 into a
    string field as '123', and a string "5" into a number field as null, so the
    parsed struct alone cannot tell a retyped field from a good one.

    json_value_starts gives two arrays from one pattern: the keys in the
    order they appear, and the first character of each one's value. Both are
    taken once per line, where a regular expression per key read the whole
    line ten times. -#}

{% macro json_value_starts(json_text, part) -%}
    {%- set group = {'keys': 1, 'starts': 2}[part] -%}
    regexp_extract_all({{ json_text }}, '"(\\w+)"\\s*:\\s*(.)', {{ group }})
{%- endmacro %}


{#- True when the key's value is not of `json_type` ('string' or 'number'),
    given the arrays of json_value_starts; the first occurrence of a key
    counts. A missing key or a null is left to the other checks. -#}
{% macro json_is_wrong_type(keys, starts, key, json_type) -%}
    {%- set start = 'get(' ~ starts ~ ', array_position(' ~ keys ~ ", '" ~ key ~ "') - 1)" -%}
    {%- if json_type == 'string' -%}
        {{ start }} not in ('"', 'n')
    {%- else -%}
        {{ start }} not rlike '^[-0-9n]$'
    {%- endif -%}
{%- endmacro %}
