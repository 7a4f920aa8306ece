"""Where the embedded session keeps its tables: a local folder (the default,
<lake_dir>/warehouse) or any Hadoop file-system URI (the profile's
`warehouse_dir`: s3a://bucket/prefix, hdfs://..., gs://..., abfs://...).

The Derby metastore, the lake lock and the warm server's state stay in the
local `lake_dir` whatever the warehouse is. The jars an object store needs
are storage/connector_jars.py's. Nothing here imports pyspark: a profile is read
without it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from dbt_common.exceptions import DbtRuntimeError

URI = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


def scheme(location: str) -> str:
    """The file-system scheme of a location; `file` for a local path."""
    match = URI.match(location)
    return match.group(1).lower() if match else "file"


def is_local(location: str) -> bool:
    return scheme(location) == "file"


def same_folder(location: str, wanted: str) -> bool:
    """Whether a table's location, as the catalog reports it (`file:/a/b`
    for a local folder), is the folder `wanted` (`/a/b`, `a/b` from the
    working directory, `file:///a/b/`, or an object store's URI)."""

    def normal(path: str) -> str:
        if not is_local(path):
            return path.rstrip("/")
        return os.path.abspath(path.removeprefix("file://").removeprefix("file:"))

    return normal(location) == normal(wanted)


def warehouse_location(lake_dir: str, warehouse_dir: str | None) -> str:
    """spark.sql.warehouse.dir for the profile: a URI as given (without a
    trailing slash), a local path resolved."""
    if warehouse_dir is None:
        return str(Path(lake_dir).expanduser().resolve() / "warehouse")
    if not is_local(warehouse_dir) or warehouse_dir.startswith("file:"):
        return warehouse_dir.rstrip("/")
    return str(Path(warehouse_dir).expanduser().resolve())


def check_warehouse_dir(warehouse_dir: str) -> None:
    """A clear error for a location no Hadoop file system serves as a warehouse."""
    kind = scheme(warehouse_dir)
    if kind in ("s3", "s3n"):
        raise DbtRuntimeError(
            f"warehouse_dir: {warehouse_dir}: Hadoop's S3 file system is s3a://; "
            f"write s3a://{warehouse_dir.split('://', 1)[1]}"
        )
    if kind == "s3a" and not re.match(r"^s3a://[^/]+", warehouse_dir, re.IGNORECASE):
        raise DbtRuntimeError(
            f"warehouse_dir: {warehouse_dir} names no bucket: write s3a://<bucket>/<prefix>"
        )


# Hadoop 3.3's S3 client retries a failed request inside the AWS SDK (20
# attempts, its core-default.xml) inside each of its own retries (7, from
# 500 ms doubling): a store that stops answering held a model's write for
# over ten minutes before the run failed. These bound it to about a minute
# (91 s measured, the machine busy), and keep the retries that ride out a
# dropped connection; throttling (503) keeps S3A's own longer limit.
# The connection pool: Hadoop 3.3.4's 96 connections, which later releases
# raised to 500 because parallel reads ran out of them (HADOOP-19015). With
# Hudi's metadata table on, Hudi 1.2.0 leaves a connection open for each
# metadata log block it reads (apache/hudi#19936): a 5,000-event warehouse
# build failed at 96 and passed at 500, and a longer run fails at either
# (store_probe.connections_exhausted says so). The profile's spark_conf
# overrides each.
S3A_SESSION_DEFAULTS = {
    "spark.hadoop.fs.s3a.attempts.maximum": "3",
    "spark.hadoop.fs.s3a.retry.limit": "3",
    "spark.hadoop.fs.s3a.connection.maximum": "500",
}


def session_defaults(location: str) -> dict[str, str]:
    """Spark settings an embedded session on a warehouse at `location` starts
    with, before the profile's own."""
    return dict(S3A_SESSION_DEFAULTS) if scheme(location) == "s3a" else {}
