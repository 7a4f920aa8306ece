"""Where the embedded session keeps a lake's catalog (its schemas, tables and
views): in Hive's metastore (`metastore`: a Derby database inside the lake,
`metastore_db`, or the shared one spark_conf names), or as files in the
lake's `catalog` folder (`folder`: java/FolderCatalog.java, built by
format_jars; Spark's in-memory catalog, each change written through to a
JSON file per table or view before its statement returns, read back when a
session starts on the lake).

The folder starts no Hive, DataNucleus or Derby, which is most of what a
process that runs several projects, each on its own lake, pays per project
(docs/freshness-and-benchmarks.md, "Several projects in one process"). A
lake keeps the kind it was made with: a profile that names the other kind
for a lake that has one gets an error naming both; a profile that does not
say follows the lake, and a new lake gets LAKEHOUSE_LAKE_CATALOG's kind,
else DEFAULT (a folder; a metastore where no JDK's javac can build the
folder's class).
"""

from __future__ import annotations

import os
from pathlib import Path

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.lake.metastore import shares_catalog

METASTORE = "metastore"
FOLDER = "folder"
KINDS = (METASTORE, FOLDER)
# What a new lake gets when neither the profile nor the environment says.
DEFAULT = FOLDER
# The profile's lake_catalog, carried to the session as one of its settings
# (so that the warm server's fingerprint covers it, as it covers spark_conf);
# in the session's own settings, the kind for_lake decided.
CONF = "spark.lakehouse.lakeCatalog"
# The kind a new lake gets when the profile does not say.
ENV_VAR = "LAKEHOUSE_LAKE_CATALOG"
FOLDER_NAME = "catalog"
DERBY_NAME = "metastore_db"

SOURCE = Path(__file__).parents[1] / "java" / "FolderCatalog.java"


def check_kind(kind: str, source: str) -> str:
    """`kind` as a kind of lake catalog; an error naming `source` (the
    setting it came from) when it is none."""
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise DbtRuntimeError(
            f"{source}: {kind!r} is not a kind of lake catalog: use {METASTORE} (Hive's "
            f"metastore: a Derby database in the lake, or the one spark_conf names) or {FOLDER} "
            f"(files in the lake's {FOLDER_NAME} folder)."
        )
    return kind


def for_lake(lake: Path, spark_conf: dict[str, str], folder_built: bool = True) -> str:
    """The kind of catalog the session on `lake` uses: the one the lake has
    (refusing a profile that names the other), else the profile's, else
    LAKEHOUSE_LAKE_CATALOG's, else DEFAULT, which is a metastore when the
    folder's class could not be built here (`folder_built` false: no javac).
    A shared metastore in spark_conf is a metastore (the profile cannot also
    name folder: credentials)."""
    if shares_catalog(spark_conf):
        return METASTORE
    asked = spark_conf.get(CONF)
    found = kind_in(lake)
    if asked is not None and found is not None and asked != found:
        place = lake / (DERBY_NAME if found == METASTORE else FOLDER_NAME)
        raise DbtRuntimeError(
            f"The lake {lake} keeps its catalog in {place} (lake_catalog: {found}), and this "
            f"profile asks for lake_catalog: {asked}. A lake keeps the kind it was made with: "
            f"set lake_catalog: {found} in the profile (or leave it out), or give the profile "
            "another lake_dir."
        )
    if asked is not None:
        return asked
    if found is not None:
        return found
    if os.environ.get(ENV_VAR, "").strip():
        return check_kind(os.environ[ENV_VAR], ENV_VAR)
    return DEFAULT if folder_built else METASTORE


def kind_in(lake: Path) -> str | None:
    """The kind of catalog the lake has; None: none yet."""
    if (lake / DERBY_NAME / "service.properties").is_file():
        return METASTORE
    if any((lake / FOLDER_NAME).glob("*/_schema.json")):
        return FOLDER
    return None


def require(jar_path: Path | None, lake: Path) -> None:
    """Refuse a lake whose catalog is a folder when its class could not be
    built (format_jars.folder_catalog_jar)."""
    if jar_path is None:
        raise DbtRuntimeError(
            f"The lake {lake} keeps its catalog in its {FOLDER_NAME} folder (lake_catalog: "
            f"{FOLDER}), which needs {SOURCE.name} compiled here by a JDK's javac, and it could "
            "not be (see the log): install a JDK (17) or set JAVA_HOME to one; a new lake can "
            f"use lake_catalog: {METASTORE}."
        )
