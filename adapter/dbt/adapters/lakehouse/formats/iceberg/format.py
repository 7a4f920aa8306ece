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

from dbt.adapters.lakehouse.formats.iceberg.history import Ancestry
from dbt.adapters.lakehouse.formats.table_format import Ask, TableFormat
from dbt.adapters.lakehouse.maven import MavenJar

VERSION = "1.10.0"
EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
CATALOG_CLASS = "org.apache.iceberg.spark.SparkCatalog"
# The catalog that keeps Iceberg's tables (and whose `system` has its procedures).
CATALOG = "iceberg"
RUNTIME = "Iceberg's Spark runtime"


class Iceberg(TableFormat):
    name = "iceberg"
    title = "Iceberg"
    sql_extension = EXTENSION
    in_lake_session_catalog = True
    server_jars = (
        "Iceberg's Spark runtime (iceberg-spark-runtime-3.5_2.12) and the session "
        "catalog of the three formats (dbt-lakehouse's LakeSessionCatalog.java)"
    )

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


def ancestry(ask: Ask, table: str) -> Ancestry:
    """An Iceberg table's current snapshot and its ancestors."""
    return Ancestry.from_rows(ask("iceberg_ancestry", table=table))


ICEBERG = Iceberg()
