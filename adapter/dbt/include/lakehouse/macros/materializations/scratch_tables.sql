{#- Scratch tables hold one write's batch, or one staged commit read, for the
    length of that write (adapter.scratch_relation names them). Where the
    connection keeps batches in memory (the embedded session on a local
    master), one is a temporary view of checkpointed rows, and its relation
    has no schema (adapter writes/memory_staging.py). On the lake they are parquet
    tables at the place a managed table of the same name would live, written
    in overwrite mode: a run killed while writing one leaves files there with
    no table in the catalog, and a managed CREATE TABLE would then fail on
    every later run (LOCATION_ALREADY_EXISTS) until someone removed the
    folder by hand. Overwriting takes the leftovers over. -#}

{% macro lakehouse_create_scratch_table(relation, sql) -%}
  {%- if relation.schema is none -%}
    {%- do adapter.stage_in_memory(relation, sql) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- call statement('drop_scratch', auto_begin=False) -%}
    drop table if exists {{ relation }}
  {%- endcall -%}
  {%- call statement('scratch_overwrites', auto_begin=False) -%}
    set spark.sql.legacy.allowNonEmptyLocationInCTAS = true
  {%- endcall -%}
  {%- call statement('create_scratch', auto_begin=False) -%}
    create table {{ relation }} using parquet
    location '{{ adapter.scratch_location(relation) | replace("'", "\\'") }}'
    as {{ sql }}
  {%- endcall -%}
  {%- call statement('scratch_overwrites_reset', auto_begin=False) -%}
    reset spark.sql.legacy.allowNonEmptyLocationInCTAS
  {%- endcall -%}
{%- endmacro %}

{#- Dropping an external table keeps its files, so the folder is then
    overwritten with nothing: a batch does not stay on disk until the next run. -#}
{% macro lakehouse_drop_scratch_table(relation) -%}
  {%- if relation.schema is none -%}
    {%- do adapter.drop_staged(relation) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- call statement('drop_scratch', auto_begin=False) -%}
    drop table if exists {{ relation }}
  {%- endcall -%}
  {%- call statement('empty_scratch', auto_begin=False) -%}
    insert overwrite directory '{{ adapter.scratch_location(relation) | replace("'", "\\'") }}'
    using parquet select 1 as emptied where false
  {%- endcall -%}
{%- endmacro %}
