"""Delta Lake as a TableFormat (formats/table_format.py).

Delta's catalog cannot be a catalog of its own name (it expects to be
`spark_catalog`, delta-io/delta#2434), so its tables sit behind the session
catalog of the formats (java/LakeSessionCatalog.java), in front of Hudi's.
"""

from __future__ import annotations

from dbt.adapters.lakehouse.formats.delta.history import NO_DATA_COMMITS, History
from dbt.adapters.lakehouse.formats.table_format import Ask, TableFormat
from dbt.adapters.lakehouse.maven import MavenJar

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
    sql_extension = EXTENSION
    in_lake_session_catalog = True
    server_jars = (
        f"Delta Lake's jars (delta-spark_2.12 and delta-storage {VERSION}) and the session "
        "catalog of the three formats (dbt-lakehouse's LakeSessionCatalog.java)"
    )

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


DELTA = Delta()
