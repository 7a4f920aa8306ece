"""Delta Lake as a TableFormat (formats/table_format.py).

Delta's catalog cannot be a catalog of its own name (it expects to be
`spark_catalog`, delta-io/delta#2434), so its tables sit behind the session
catalog of the formats (java/LakeSessionCatalog.java), in front of Hudi's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.delta import catalog_stats, change_ranges, recovery
from dbt.adapters.lakehouse.formats.delta.history import NO_DATA_COMMITS, History
from dbt.adapters.lakehouse.formats.delta.services import DeltaServices
from dbt.adapters.lakehouse.formats.delta.table_config import CHANGE_DATA_FEED, DeltaTableConfig
from dbt.adapters.lakehouse.formats.leftovers import Clearing, Found, ListPaths
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

# 3.3.3, not earlier: Delta 3.3.2 and before fail CREATE OR REPLACE TABLE ... AS
# SELECT on Spark 3.5.6 and later ("does not support truncate in batch mode",
# delta-io/delta#4671), and the table materialization runs it.
VERSION = "3.3.3"
EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
SPARK_JAR = "Delta Lake's Spark jar"
# Delta on one machine: its defaults are a cluster's. Each read of a table's
# log is 50 tasks, and VACUUM lists a table's folder in 10,000: a 3-row
# table's VACUUM took 48 s and its overwrite 5.4 s; with these, 5.5 s and
# 3.1 s (a dbt model with cleaning on the warm local server, run twice).
LOCAL_CONF = {
    "spark.databricks.delta.snapshotPartitions": "2",
    "spark.sql.sources.parallelPartitionDiscovery.parallelism": "8",
}


class Delta(TableFormat):
    name = "delta"
    title = "Delta"
    readers = {
        "delta-rs (`deltalake` 1.6)": "`table_type: cow` tables; not `mor`, whose deletion "
        "vectors it refuses (\"reader features {'deletionVectors'} ... not yet supported\")",
    }

    configs = {
        "unique_key": "the MERGE's key: upserts, deletes (kept in the table property "
        "lakehouse.unique_key)",
        "table_type": "`cow` / `mor`: deletion vectors off / on (`delta.enableDeletionVectors`)",
        "precombine_key": "the batch keeps the largest value per key, the MERGE updates or "
        "deletes a stored row only when the incoming value is not smaller",
        "partition_by": "partition columns",
        "delete_condition": "batch rows matching it delete their key (a MERGE's delete)",
        "tblproperties": "table properties (Delta's own: `delta.targetFileSize`, ...); not "
        "the deletion vectors table_type sets, nor the change data feed change reads need",
        "compaction": "when files with deletion vectors are rewritten (`mor`): `OPTIMIZE` "
        "then `REORG TABLE ... APPLY (PURGE)`, the trigger counting versions since the last "
        "of either; `mode: schedule` leaves it to `lake_compact_scheduled`",
        "cleaning": "`VACUUM` after each write, keeping the files of the latest `retain` "
        "versions (unset: 10) or of the last `retain` hours; `keep_latest_file_versions` "
        "refused",
        "skip_unchanged": "no write when nothing it reads has a new commit, snapshot or version",
        "location_root": "the table's folder (an external Delta table); moved by a full refresh",
    }
    instead = {
        "index": "Delta has no bucket partitioning and finds rows by its file statistics: "
        "remove index (partition_by partitions the table).",
        "hudi_options": "Set Delta's table properties in tblproperties.",
        "options": "Use the typed configs, or Delta's table properties in tblproperties.",
        "file_sizing": "Set Delta's delta.targetFileSize in tblproperties.",
        "clustered_by": "Delta has no bucketing: use partition_by.",
        "buckets": "Delta has no bucketing: use partition_by.",
    }
    # One commit each.
    strategies = MERGE_STRATEGIES
    sql_extension = EXTENSION
    in_lake_session_catalog = True
    server_jars = (
        f"Delta Lake's jars (delta-spark_2.12 and delta-storage {VERSION}) and the session "
        "catalog of the three formats (dbt-lakehouse's LakeSessionCatalog.java)"
    )

    def table_config(
        self, model: str, config: Mapping[str, Any], target_settings: Mapping[str, str]
    ) -> DeltaTableConfig:
        return cast(DeltaTableConfig, DeltaTableConfig.from_model_config(model, config))

    def services(self, rows: Callable[[str], list[Any]], statements: Statements) -> DeltaServices:
        return DeltaServices(rows, statements)

    def session_conf(self, warehouse: str, master: str) -> dict[str, str]:
        conf = {
            "spark.sql.catalog.spark_catalog.delta": "true",
            # A Delta model's cleaning says how long VACUUM keeps files (its
            # versions, or hours); Delta's own check refuses any under 7 days.
            "spark.databricks.delta.retentionDurationCheck.enabled": "false",
        }
        if master.startswith("local"):
            conf.update(LOCAL_CONF)
        return conf

    def jars(self, spark: str, scala: str) -> dict[str, MavenJar]:
        """Delta Lake for Spark 3.5 (3.x is Spark 3.5's line) and the Scala of
        the installed Spark, with its storage layer."""
        return {
            SPARK_JAR: MavenJar("io.delta", f"delta-spark_{scala}", VERSION),
            "Delta Lake's storage jar": MavenJar("io.delta", "delta-storage", VERSION),
        }

    def latest_position(self, ask: Ask, table: str) -> str | None:
        """The table's latest version of its data (NO_DATA_COMMITS left out)."""
        for row in ask("delta_latest_versions", table=table):
            if str(row["operation"]) not in NO_DATA_COMMITS:
                return f"v{row['version']}"
        return None

    def recorded(self, ask: Ask, table: str, key: str) -> str | None:
        """In the user metadata of the table's commits."""
        return History.from_rows(ask("delta_history", table=table)).recorded(key)

    def change_history(self, lake: Lake, request: ReadRequest) -> change_ranges.DeltaChanges:
        """The table's versions, from its Change Data Feed: an error naming
        the fix when it keeps none."""
        upstream = request.upstream
        if lake.table_properties(upstream).get(CHANGE_DATA_FEED, "").lower() != "true":
            raise CompilationError(
                f"Model '{request.model}' reads the changes of {upstream}, a Delta table "
                "without a change data feed. Build it with dbt-lakehouse (every Delta model "
                f"keeps one), or run `ALTER TABLE {upstream} SET TBLPROPERTIES "
                f"({CHANGE_DATA_FEED} = true)` and rebuild this model with --full-refresh "
                "(changes before that are not recorded)."
            )
        history = History.from_rows(lake.ask("delta_history", table=upstream))
        return change_ranges.DeltaChanges(history)

    def change_source(self, read: ChangeRead, sql: Sql) -> str:
        return change_ranges.change_source(read, sql)

    def as_of(self, read: ChangeRead, sql: Sql) -> str:
        return change_ranges.as_of(read, sql)

    def catalog_stats(self, lake: Lake, table: str, location: str, add: AddStat) -> CatalogHistory:
        return catalog_stats.catalog_stats(lake, table, add)

    def leftover_in_folder(
        self, names: list[str], base: str, list_paths: ListPaths
    ) -> Found | None:
        return recovery.folder_leftover(names, base, list_paths)

    def clear_killed_create(self, clearing: Clearing, replaces: bool) -> str | None:
        """A CREATE OR REPLACE takes a committed Delta folder over as the
        table's next version, the earlier ones kept in its history."""
        return clearing.clear_folder(self.name if replaces else None)


DELTA = Delta()
