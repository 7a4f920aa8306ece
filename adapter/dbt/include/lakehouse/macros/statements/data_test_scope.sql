{#- What a data test scoped to what a run wrote reads (lakehouse_test_scope:
    changed; data_tests/queries.py decides which). Each is a subquery or a
    filter; define a macro of the same name in your project to change one. -#}

{#- The partitions a write touched, each a list of (column, value) pairs
    (value none: Hudi's null partition); none touched: false. A partition
    path holds the value's text, so the column is compared as text. -#}
{% macro lakehouse__written_partitions(partitions) -%}
{%- if not partitions -%}
false
{%- else -%}
({% for partition in partitions %}{% if not loop.first %} or {% endif %}({% for column, value in partition %}{% if not loop.first %} and {% endif %}{% if value is none %}`{{ column }}` is null{% else %}cast(`{{ column }}` as string) = '{{ value }}'{% endif %}{% endfor %}){% endfor %})
{%- endif -%}
{%- endmacro %}

{#- The rows commits after `instant` wrote, in the partitions they wrote
    (partitions none: in any). -#}
{% macro lakehouse__written_since(instant, partitions=none) -%}
{%- if partitions is not none %}{{ lakehouse__written_partitions(partitions) }} and {% endif -%}
_hoodie_commit_time > '{{ instant }}'
{%- endmacro %}

{#- The rows whose `keys` are among those of the rows of `relation` that
    pass `conditions` (and the test's `where`). -#}
{% macro lakehouse__keys_in(keys, relation, conditions, where='') -%}
{% if keys | length == 1 %}{{ keys[0] }}{% else %}({{ keys | join(', ') }}){% endif %} in (select {{ keys | join(', ') }} from {{ relation }} where {{ conditions | join(' and ') }}{% if where %} and ({{ where }}){% endif %})
{%- endmacro %}

{#- The rows of `relation` a test reads: those that pass `conditions` and
    the test's `where`. -#}
{% macro lakehouse__tested_rows(relation, conditions, where='') -%}
(select * from {{ relation }} where {{ conditions | join(' and ') }}{% if where %} and ({{ where }}){% endif %}) dbt_subquery
{%- endmacro %}

{#- The rows of a table-valued query of changes a test reads. -#}
{% macro lakehouse__tested_changes(changes, where='') -%}
(select * from {{ changes }}{% if where %} where ({{ where }}){% endif %}) dbt_subquery
{%- endmacro %}

{#- The distinct values of `columns` among the rows of each (relation,
    filter) pair: the groups a reconciliation compares. -#}
{% macro lakehouse__changed_values(columns, written) -%}
{%- for relation, condition in written -%}
{% if not loop.first %} union {% endif %}select {{ columns | join(', ') }} from {{ relation }} where {{ condition }}
{%- endfor -%}
{%- endmacro %}
