"""The jars of the table formats besides Hudi (formats/registry.py says which a
session loads), found or fetched like the Hudi bundle (maven.fetch_jar:
the per-user cache, ~/.m2, Maven Central with its checksum).

Delta and Iceberg also need the session catalog that holds their tables
beside Hudi's (java/LakeSessionCatalog.java): compiled once per machine into
the jar cache with the JDK's javac, against pyspark's jars and the Hudi bundle
(it loads Delta's catalog by name), and named for both. So is the catalog
of a lake that keeps it in a folder (java/FolderCatalog.java, lake/catalog.py),
against pyspark's jars.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from dbt.adapters.lakehouse.session import local_fs

ICEBERG_VERSION = "1.10.0"
# 3.3.3, not earlier: Delta 3.3.2 and before fail CREATE OR REPLACE TABLE ... AS
# SELECT on Spark 3.5.6 and later ("does not support truncate in batch mode",
# delta-io/delta#4671), and the table materialization runs it.
DELTA_VERSION = "3.3.3"
CATALOG_SOURCE = Path(__file__).parents[1] / "java" / "LakeSessionCatalog.java"
DELTA_SPARK = "Delta Lake's Spark jar"


def iceberg_runtime(bundle: hudi_bundle.Bundle) -> maven.MavenJar:
    """Iceberg's Spark runtime for the installed Spark and Scala."""
    return maven.MavenJar(
        "org.apache.iceberg",
        f"iceberg-spark-runtime-{bundle.spark}_{bundle.scala}",
        ICEBERG_VERSION,
    )


def delta_jars(bundle: hudi_bundle.Bundle) -> dict[str, maven.MavenJar]:
    """Delta Lake for Spark 3.5 (3.x is Spark 3.5's line) and the Scala of the
    installed Spark, with its storage layer."""
    return {
        DELTA_SPARK: maven.MavenJar("io.delta", f"delta-spark_{bundle.scala}", DELTA_VERSION),
        "Delta Lake's storage jar": maven.MavenJar("io.delta", "delta-storage", DELTA_VERSION),
    }


def wanted(formats: list[str]) -> dict[str, maven.MavenJar]:
    """The jars the formats other than Hudi add, by what they are (Hudi's
    bundle is always loaded)."""
    jars: dict[str, maven.MavenJar] = {}
    if "iceberg" in formats:
        jars["Iceberg's Spark runtime"] = iceberg_runtime(hudi_bundle.installed_bundle())
    if "delta" in formats:
        jars.update(delta_jars(hudi_bundle.installed_bundle()))
    return jars


def fetch(formats: list[str], notify: Callable[[str], None], hudi_jar: Path) -> list[Path]:
    """Those jars, on this machine: fetched once into the per-user cache; with
    Delta or Iceberg, the session catalog's jar too (built once)."""
    found: dict[str, Path] = {}
    cache = maven.user_cache_dir()
    for label, jar in wanted(formats).items():
        try:
            found[label] = maven.fetch_jar(jar, label, cache, notify=notify)
        except maven.JarError as exc:
            raise DbtRuntimeError(
                f"The project's models need {label} {jar.coordinates}, which could not be "
                f"fetched ({exc}); set {maven.REPOSITORY_ENV_VAR} to a Maven mirror, or "
                f"put {jar.jar_name} in {cache}"
            ) from exc
    if "delta" in formats or "iceberg" in formats:
        found["the session catalog"] = session_catalog_jar(hudi_jar, cache)
    return list(found.values())


def session_catalog_jar(hudi_jar: Path, cache: Path) -> Path:
    """java/LakeSessionCatalog.java compiled against these jars (once: the jar
    is named for the source and the jars)."""
    import pyspark

    spark_jars = Path(pyspark.__file__).parent / "jars"
    digest = hashlib.sha256(
        CATALOG_SOURCE.read_bytes() + f"{pyspark.__version__}{hudi_jar.name}".encode()
    ).hexdigest()[:12]
    target = cache / f"lakehouse-session-catalog-{digest}.jar"
    if target.is_file():
        return target
    javac = local_fs._javac()
    if javac is None:
        raise DbtRuntimeError(
            "Delta and Iceberg models need the session catalog that holds their tables beside "
            "Hudi's, "
            f"compiled here from {CATALOG_SOURCE.name} by a JDK's javac, and there is none: "
            "install a JDK (17), or set JAVA_HOME to one."
        )
    classpath = os.pathsep.join([str(spark_jars / "*"), str(hudi_jar)])
    try:
        local_fs.compile_jar(javac, CATALOG_SOURCE, classpath, target)
    except local_fs.CompileError as error:
        raise DbtRuntimeError(
            f"Delta and Iceberg models need the session catalog of the three formats: {error}"
        ) from error
    return target


def folder_catalog_jar(cache_dir: Path, notify: Callable[[str], None]) -> Path | None:
    """java/FolderCatalog.java compiled against pyspark's jars, once per
    machine into `cache_dir`; None when it cannot be built here (`notify` is
    told why; a lake with a folder catalog is then refused: lake_catalog.require)."""
    import pyspark

    spark_jars = Path(pyspark.__file__).parent / "jars"
    digest = hashlib.sha256(
        lake_catalog.SOURCE.read_bytes() + pyspark.__version__.encode()
    ).hexdigest()
    target = cache_dir / f"lakehouse-folder-catalog-{digest[:12]}.jar"
    if target.is_file():
        return target
    javac = local_fs._javac()
    if javac is None:
        notify(f"lake_catalog: folder unavailable: no javac for {lake_catalog.SOURCE.name}")
        return None
    try:
        local_fs.compile_jar(javac, lake_catalog.SOURCE, str(spark_jars / "*"), target)
    except local_fs.CompileError as error:
        notify(f"lake_catalog: folder unavailable: {error}")
        return None
    return target
