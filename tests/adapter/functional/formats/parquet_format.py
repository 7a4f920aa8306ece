"""A fourth table format that exists only in the test suite: plain parquet
tables, built whole or appended to and overwritten, no keys, no history. It
plugs in as a format from another package would: this module's PARQUET is
named by an entry point of the group dbt_lakehouse.table_formats, and its
macros (lakehouse_parquet__write_model, PARQUET_MACROS) are in the project.
test_plugin_format.py installs both; nothing of the adapter names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from dbt.adapters.lakehouse.formats import config_support
from dbt.adapters.lakehouse.formats.table_format import TableFormat


@dataclass(frozen=True)
class ParquetTableConfig:
    """A parquet model's configs (what the macros read)."""

    format: ClassVar[str] = "parquet"
    default_strategy: ClassVar[str] = "append"

    model: str
    partition_by: tuple[str, ...] = ()

    def resolve_strategy(self, name: str) -> str:
        config_support.check_strategy(self.model, self.format, name)
        return name


class Parquet(TableFormat):
    name = "parquet"
    title = "Parquet"
    configs = {"partition_by": "partition columns"}
    strategies = {
        "append": "`insert into`",
        "insert_overwrite": "`insert overwrite` of the partitions the batch writes",
    }

    def table_config(
        self, model: str, config: Mapping[str, Any], target_settings: Mapping[str, str]
    ) -> ParquetTableConfig:
        config_support.check(model, self.name, config)
        partition_by = config.get("partition_by") or []
        if isinstance(partition_by, str):
            partition_by = [partition_by]
        return ParquetTableConfig(model, tuple(str(c) for c in partition_by))


PARQUET = Parquet()

# The format's macros: its write, for `table` and `incremental` models.
PARQUET_MACROS = """
{% macro lakehouse_parquet__write_model(rebuild) -%}
  {%- set lake = adapter.table_config(model) -%}
  {%- set strategy = lakehouse_write_strategy(lake) -%}
  {%- set target = this.incorporate(type='table') -%}
  {%- set existing = load_relation(this) -%}
  {%- if existing is none or rebuild -%}
    {%- if existing is not none -%}
      {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- call statement('main') -%}
      create table {{ target }} using parquet
      {%- if lake.partition_by %} partitioned by ({{ lake.partition_by | join(', ') }}){% endif %}
      tblproperties ('written_by' = 'lakehouse_parquet__write_model')
      as {{ lakehouse_model_sql() }}
    {%- endcall -%}
  {%- else -%}
    {%- if strategy == 'insert_overwrite' -%}
      {%- do run_query('set spark.sql.sources.partitionOverwriteMode = dynamic') -%}
    {%- endif -%}
    {%- call statement('main') -%}
      insert {{ 'overwrite' if strategy == 'insert_overwrite' else 'into' }} table {{ target }}
      {{ lakehouse_model_sql() }}
    {%- endcall -%}
    {%- do run_query('reset spark.sql.sources.partitionOverwriteMode') -%}
  {%- endif -%}
  {{ return(target) }}
{%- endmacro %}
"""
