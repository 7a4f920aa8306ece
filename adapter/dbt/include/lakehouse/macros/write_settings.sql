{#- Hudi reads its write configs from the session (they beat table properties),
    so each write sets what it needs and clears them after; sessions are per
    connection, so this never reaches another thread's write. The adapter
    applies only the difference from what the session holds, on the embedded
    session without a statement each (session_settings.py). -#}

{% macro lakehouse_apply_write_settings(settings) -%}
  {%- do adapter.replace_write_settings(settings) -%}
{%- endmacro %}

{#- Clears every setting a write may have made, including ones left by a write
    that failed before it could clear its own, back to the connection's own
    `hoodie.*` settings (the profile's concurrency control, its
    server_side_parameters), which every write keeps. -#}
{% macro lakehouse_clear_write_settings() -%}
  {%- do adapter.replace_write_settings({}) -%}
{%- endmacro %}
