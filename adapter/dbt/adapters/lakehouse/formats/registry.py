"""The table formats a Spark session can hold, and what each needs loaded.

Which catalog holds which format, and why: every model's table is named
`schema.table` in the session catalog (`spark_catalog`), as dbt-spark projects,
Hudi's docs and dbt's own adapter tests expect, whatever its format.
- Hudi's tables are the session catalog's (Hudi's HoodieCatalog over the Hive
  metastore). Hudi needs its catalog to be the session catalog, and only one
  catalog can be.
- Delta's catalog cannot be a catalog of its own name either (it expects to be
  `spark_catalog`, delta-io/delta#2434). So a session with Delta or Iceberg gets
  one session catalog that chains them (java/LakeSessionCatalog.java: Delta's
  catalog in front of Hudi's in front of Spark's).
- Iceberg's tables are kept by Iceberg's own catalog, named `iceberg` (a
  Hadoop catalog: the `iceberg/` folder of the warehouse, on the local disk or
  in a bucket). Iceberg's session catalog would open a second metastore client,
  which the embedded Derby metastore refuses. The session catalog holds a
  pointer to each Iceberg table and hands Iceberg's catalog whatever reads or
  changes it; Iceberg's procedures are called on `iceberg.system`. A profile
  may point that catalog elsewhere (`spark.sql.catalog.iceberg.*` in
  spark_conf beats these settings).

A session loads a format's jar (session/format_jars.py) and SQL extension only when the project has a
model of that format, or the profile's `table_formats` lists it: the adapter
writes the set into the session's settings under FORMATS_CONF before the first
connection opens (impl.py), which is also how a running session (the
process's, or the lake's warm server, whose fingerprint covers spark_conf)
tells what it was started with.
"""

from __future__ import annotations

from collections.abc import Iterable

from dbt_common.exceptions import DbtRuntimeError

# The formats a model may name in file_format; the first is the default.
FORMATS = ("hudi", "iceberg", "delta")
DEFAULT_FORMAT = FORMATS[0]
# The Spark setting that lists the formats a session was started with.
FORMATS_CONF = "spark.lakehouse.tableFormats"

ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
ICEBERG_CATALOG_CLASS = "org.apache.iceberg.spark.SparkCatalog"
DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
# The session catalog of a session holding Delta or Iceberg (session/format_jars.py builds it).
LAKE_SESSION_CATALOG = "lakehouse.catalog.LakeSessionCatalog"
# The catalog that keeps Iceberg's tables (and whose `system` has its procedures).
ICEBERG_CATALOG = "iceberg"
EXTENSIONS = {"iceberg": ICEBERG_EXTENSION, "delta": DELTA_EXTENSION}
# The order of the SQL extensions in spark.sql.extensions: Delta's before
# Iceberg's. Iceberg's row-lineage rule for UPDATE (1.10 to 1.12, Spark 3.5)
# fails on any table not Iceberg's ("scala.MatchError: DeltaTableV2", as a
# dbt snapshot test's UPDATE of a Delta table met it); with Delta's rules
# first, an UPDATE of a Delta table is Delta's before Iceberg's rule sees it.
EXTENSION_ORDER = ("delta", "iceberg")


def check_names(formats: Iterable[str], where: str) -> list[str]:
    """The formats, each known, in FORMATS order; an error naming `where` otherwise."""
    wanted = {str(f).strip().lower() for f in formats if str(f).strip()}
    unknown = sorted(wanted - set(FORMATS))
    if unknown:
        raise DbtRuntimeError(
            f"{where} names the table format(s) {', '.join(unknown)}; dbt-lakehouse "
            f"writes {', '.join(FORMATS)}."
        )
    return [f for f in FORMATS if f in wanted or f == DEFAULT_FORMAT]


def of_nodes(nodes: Iterable[object]) -> set[str]:
    """The formats the models, seeds and snapshots of a manifest are written in
    (unknown names are left for the model's own error)."""
    found: set[str] = set()
    for node in nodes:
        config = getattr(node, "config", None)
        fmt = config.get("file_format") if config is not None else None
        if isinstance(fmt, str) and fmt.lower() in FORMATS:
            found.add(fmt.lower())
    return found


def encode(formats: Iterable[str]) -> str:
    return ",".join(check_names(formats, "table_formats"))


def decode(value: str | None) -> list[str]:
    """The formats a FORMATS_CONF value lists (Hudi alone when unset)."""
    return check_names((value or "").split(","), FORMATS_CONF)


def session_conf(formats: Iterable[str], warehouse: str, master: str = "local") -> dict[str, str]:
    """The extensions and catalogs of the formats other than Hudi, for a
    session whose Hudi warehouse is at `warehouse`, on `master`."""
    conf: dict[str, str] = {}
    if "delta" in formats or "iceberg" in formats:
        conf["spark.sql.catalog.spark_catalog"] = LAKE_SESSION_CATALOG
    if "delta" in formats:
        conf["spark.sql.catalog.spark_catalog.delta"] = "true"
        # A Delta model's cleaning says how long VACUUM keeps files (its
        # versions, or hours); Delta's own check refuses any under 7 days.
        conf["spark.databricks.delta.retentionDurationCheck.enabled"] = "false"
        if master.startswith("local"):
            conf.update(DELTA_LOCAL_CONF)
    if "iceberg" in formats:
        conf.update(
            {
                "spark.sql.catalog.spark_catalog.iceberg-catalog": ICEBERG_CATALOG,
                f"spark.sql.catalog.{ICEBERG_CATALOG}": ICEBERG_CATALOG_CLASS,
                f"spark.sql.catalog.{ICEBERG_CATALOG}.type": "hadoop",
                f"spark.sql.catalog.{ICEBERG_CATALOG}.warehouse": f"{warehouse.rstrip('/')}/iceberg",
            }
        )
    return conf


# Delta on one machine: its defaults are a cluster's. Each read of a table's
# log is 50 tasks, and VACUUM lists a table's folder in 10,000: a 3-row
# table's VACUUM took 48 s and its overwrite 5.4 s; with these, 5.5 s and
# 3.1 s (a dbt model with cleaning on the warm local server, run twice).
DELTA_LOCAL_CONF = {
    "spark.databricks.delta.snapshotPartitions": "2",
    "spark.sql.sources.parallelPartitionDiscovery.parallelism": "8",
}

# The jar a server needs for each format besides Hudi (session/format_jars.py fetches it).
RUNTIME_JARS = {
    "iceberg": "Iceberg's Spark runtime (iceberg-spark-runtime-3.5_2.12) and the session "
    "catalog of the three formats (dbt-lakehouse's LakeSessionCatalog.java)",
    "delta": "Delta Lake's jars (delta-spark_2.12 and delta-storage 3.3.3) and the session "
    "catalog of the three formats (dbt-lakehouse's LakeSessionCatalog.java)",
}


def extensions(formats: Iterable[str]) -> list[str]:
    wanted = list(formats)
    return [EXTENSIONS[f] for f in EXTENSION_ORDER if f in wanted]


def started_with(formats_conf: str | None, extensions: str | None) -> list[str]:
    """The formats a running session holds: its FORMATS_CONF, or for a session
    the adapter did not start, those whose SQL extension it has."""
    if formats_conf:
        return decode(formats_conf)
    loaded = extensions or ""
    return [DEFAULT_FORMAT, *(f for f, extension in EXTENSIONS.items() if extension in loaded)]


def check_started_with(started: list[str], wanted: Iterable[str]) -> None:
    """A running session serves the wanted formats only if it was started with
    them: a JVM cannot load a format's jar later."""
    missing = [f for f in wanted if f not in started]
    if missing:
        raise DbtRuntimeError(
            f"This process's Spark session was started without {', '.join(missing)} "
            f"(it holds {', '.join(started)}), which this project's models need: a "
            "running JVM cannot load a table format's jar. Run dbt in a new process, or list "
            "every format the process will use in the profile's table_formats "
            f"(e.g. table_formats: [{', '.join(FORMATS)}])."
        )


def check_served(served: list[str], fmt: str, method: str) -> None:
    """A Thrift or Connect server serves a format only if it was started with
    its jar, extension and catalog."""
    if fmt in served:
        return
    conf = session_conf([fmt], "<warehouse>")
    settings = ", ".join(f"{key}={value}" for key, value in conf.items())
    raise DbtRuntimeError(
        f"The Spark {method} server of this target holds {', '.join(served)}, not {fmt}, "
        f"which this project's models need. Start it with {fmt}: "
        f"`python -m adlake.servers.spark_server start {method} --table-formats "
        f"{','.join([*served, fmt])}` (this repository's servers), or give it "
        f"{RUNTIME_JARS.get(fmt, fmt)} on its driver class path, its SQL extension "
        f"({', '.join(extensions([fmt]))}) and {settings}."
    )
