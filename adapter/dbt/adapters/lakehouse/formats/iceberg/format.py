"""Apache Iceberg as a TableFormat (formats/table_format.py).

Its tables are kept by Iceberg's own catalog, named `iceberg` (a Hadoop
catalog: the `iceberg/` folder of the warehouse, on the local disk or in a
bucket). Iceberg's session catalog would open a second metastore client,
which the embedded Derby metastore refuses. The session catalog holds a
pointer to each Iceberg table and hands Iceberg's catalog whatever reads or
changes it; Iceberg's procedures are called on `iceberg.system`. A profile
may point that catalog elsewhere (`spark.sql.catalog.iceberg.*` in
spark_conf beats these settings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.iceberg import catalog_stats, change_ranges, recovery
from dbt.adapters.lakehouse.formats.iceberg.change_ranges import CATALOG as CATALOG
from dbt.adapters.lakehouse.formats.iceberg.history import Ancestry
from dbt.adapters.lakehouse.formats.iceberg.services import IcebergServices
from dbt.adapters.lakehouse.formats.iceberg.table_config import IcebergTableConfig
from dbt.adapters.lakehouse.formats.leftovers import Clearing
from dbt.adapters.lakehouse.formats.table_format import (
    AddStat,
    Ask,
    CatalogHistory,
    Lake,
    Sql,
    TableFormat,
)
from dbt.adapters.lakehouse.maven import MavenJar
from dbt.adapters.lakehouse.relation_configs.strategies import MERGE_STRATEGIES
from dbt.adapters.lakehouse.statements import Statements

VERSION = "1.10.0"
EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
CATALOG_CLASS = "org.apache.iceberg.spark.SparkCatalog"
# The catalog that keeps Iceberg's tables is CATALOG (change_ranges.py
# calls the procedures of its `system`).
RUNTIME = "Iceberg's Spark runtime"


class Iceberg(TableFormat):
    name = "iceberg"
    title = "Iceberg"
    readers = {
        "PyIceberg 0.12": "copy-on-write and merge-on-read tables (position deletes "
        "applied), from the table's metadata in the warehouse's `iceberg/` folder",
    }

    configs = {
        "unique_key": "the MERGE's key: upserts, deletes (kept in the table property "
        "lakehouse.unique_key)",
        "table_type": "`cow` / `mor`: `write.update.mode`, `write.delete.mode`, "
        "`write.merge.mode` copy-on-write / merge-on-read (position delete files)",
        "precombine_key": "the batch keeps the largest value per key, and the MERGE updates "
        "or deletes a stored row only when the incoming value is not smaller",
        "partition_by": "identity partition fields",
        "index": "`{type: bucket, buckets: N}` only: a `bucket(N, unique_key)` partition field",
        "delete_condition": "batch rows matching it delete their key (a MERGE's delete)",
        "tblproperties": "table properties (Iceberg's own: `write.target-file-size-bytes`, "
        "...); not the `write.*.mode` that table_type sets",
        "compaction": "when data files with delete files are rewritten (`mor`): "
        "`rewrite_data_files` then `rewrite_position_delete_files`, the trigger counting "
        "snapshots since the last rewrite; `mode: schedule` leaves it to "
        "`lake_compact_scheduled`",
        "cleaning": "`expire_snapshots` after each write, keeping the latest `retain` "
        "snapshots (unset: 10) or those of the last `retain` hours; "
        "`keep_latest_file_versions` refused",
        "skip_unchanged": "no write when nothing it reads has a new commit or snapshot",
    }
    instead = {
        "index": "Iceberg finds rows by its metadata, not an index: only "
        "{type: bucket, buckets: N} applies (a bucket partition field on the unique_key).",
        "hudi_options": "Set Iceberg's table properties in tblproperties.",
        "options": "Use the typed configs, or Iceberg's table properties in tblproperties.",
        "file_sizing": "Set Iceberg's write.target-file-size-bytes in tblproperties.",
        "location_root": "The iceberg catalog places its tables under the warehouse's "
        "iceberg/ folder: remove location_root.",
        "clustered_by": "Set index: {type: bucket, buckets: N} with a unique_key.",
        "buckets": "Set index: {type: bucket, buckets: N} with a unique_key.",
    }
    # One commit each.
    strategies = MERGE_STRATEGIES
    sql_extension = EXTENSION
    catalog = CATALOG
    in_lake_session_catalog = True
    server_jars = (
        "Iceberg's Spark runtime (iceberg-spark-runtime-3.5_2.12) and the session "
        "catalog of the three formats (dbt-lakehouse's LakeSessionCatalog.java)"
    )

    def table_config(
        self, model: str, config: Mapping[str, Any], target_settings: Mapping[str, str]
    ) -> IcebergTableConfig:
        return cast(IcebergTableConfig, IcebergTableConfig.from_model_config(model, config))

    def services(self, rows: Callable[[str], list[Any]], statements: Statements) -> IcebergServices:
        return IcebergServices(rows, statements)

    def session_conf(self, warehouse: str, master: str) -> dict[str, str]:
        return {
            "spark.sql.catalog.spark_catalog.iceberg-catalog": CATALOG,
            f"spark.sql.catalog.{CATALOG}": CATALOG_CLASS,
            f"spark.sql.catalog.{CATALOG}.type": "hadoop",
            f"spark.sql.catalog.{CATALOG}.warehouse": f"{warehouse.rstrip('/')}/iceberg",
        }

    def jars(self, spark: str, scala: str) -> dict[str, MavenJar]:
        return {
            RUNTIME: MavenJar(
                "org.apache.iceberg", f"iceberg-spark-runtime-{spark}_{scala}", VERSION
            )
        }

    def latest_position(self, ask: Ask, table: str) -> str | None:
        """The table's current snapshot."""
        return ancestry(ask, table).current

    def recorded(self, ask: Ask, table: str, key: str) -> str | None:
        """In the write-audit-publish ids of the current snapshot's ancestors."""
        return ancestry(ask, table).recorded(key)

    def change_history(self, lake: Lake, request: ReadRequest) -> change_ranges.IcebergChanges:
        """The current snapshot's ancestors."""
        return change_ranges.IcebergChanges(ancestry(lake.ask, request.upstream))

    def change_source(self, read: ChangeRead, sql: Sql) -> str:
        return change_ranges.change_source(read, sql)

    def as_of(self, read: ChangeRead, sql: Sql) -> str:
        return change_ranges.as_of(read, sql)

    def catalog_stats(self, lake: Lake, table: str, location: str, add: AddStat) -> CatalogHistory:
        return catalog_stats.catalog_stats(lake, table, add)

    def clear_killed_create(self, clearing: Clearing, replaces: bool) -> str | None:
        """Iceberg's catalog's table, and its folder (recovery.py)."""
        return recovery.clear_killed_create(clearing, replaces)


def ancestry(ask: Ask, table: str) -> Ancestry:
    """An Iceberg table's current snapshot and its ancestors."""
    return Ancestry.from_rows(ask("iceberg_ancestry", table=table))


ICEBERG = Iceberg()
