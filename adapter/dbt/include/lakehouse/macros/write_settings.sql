{#- Hudi reads its write configs from the session (they beat table properties),
    so each write SETs what it needs and clears them after. Sessions are per
    connection, so this never reaches another thread's write.

    Keys and values are backquoted: unquoted, Spark takes the raw text after
    `=` as the value (a `;` ends it, so `a;b` fails and `a;` silently becomes
    `a`) and refuses a key outside [A-Za-z0-9_.:]; backquoted, it takes both
    verbatim, a doubled backtick standing for one (no backslash escapes). -#}

{% macro lakehouse_apply_write_settings(settings) -%}
  {%- do lakehouse_clear_write_settings() -%}
  {%- for key, value in settings.items() -%}
    {%- call statement('set_' ~ loop.index, auto_begin=False) -%}
      set {{ lakehouse_backquoted(key) }} = {{ lakehouse_backquoted(value) }}
    {%- endcall -%}
  {%- endfor -%}
{%- endmacro %}

{#- Clears every setting a write may have made, including ones left by a write
    that failed before it could clear its own, back to the connection's own
    `hoodie.*` settings (the profile's concurrency control, its
    server_side_parameters), which every write keeps. -#}
{% macro lakehouse_clear_write_settings() -%}
  {%- set baseline = adapter.connection_hudi_settings() -%}
  {%- set current = run_query('set') -%}
  {%- set seen = {} -%}
  {%- for row in current.rows if row[0].startswith('hoodie.') or row[0] == 'spark.sql.sources.partitionOverwriteMode' -%}
    {%- do seen.update({row[0]: row[1]}) -%}
    {%- if row[0] not in baseline -%}
      {%- call statement('reset_' ~ loop.index, auto_begin=False) -%}
        reset {{ lakehouse_backquoted(row[0]) }}
      {%- endcall -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for key, value in baseline.items() if seen.get(key) != value -%}
    {%- call statement('restore_' ~ loop.index, auto_begin=False) -%}
      set {{ lakehouse_backquoted(key) }} = {{ lakehouse_backquoted(value) }}
    {%- endcall -%}
  {%- endfor -%}
{%- endmacro %}
