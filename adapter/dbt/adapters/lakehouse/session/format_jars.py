"""The jars of a session's table formats (formats/registry.py says which a
session loads, each format which jars: TableFormat.jars), found or fetched
like the Hudi bundle (maven.fetch_jar: the per-user cache, ~/.m2, Maven
Central with its checksum).

A format whose tables the session catalog of the formats holds
(TableFormat.in_lake_session_catalog) also needs that catalog
(java/LakeSessionCatalog.java): compiled once per machine into the jar cache
with the JDK's javac, against pyspark's jars and the Hudi bundle (it loads
the other catalogs by name), and named for both. So is the catalog
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
from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.formats.table_format import TableFormat
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from dbt.adapters.lakehouse.session import local_fs

CATALOG_SOURCE = Path(__file__).parents[1] / "java" / "LakeSessionCatalog.java"


def wanted(formats: list[str]) -> dict[str, maven.MavenJar]:
    """The jars the formats add, by what they are (Hudi's bundle is always
    loaded: formats/hudi/bundle.py)."""
    bundle = hudi_bundle.installed_bundle()
    jars: dict[str, maven.MavenJar] = {}
    for fmt in formats:
        jars.update(table_formats.get(fmt).jars(bundle.spark, bundle.scala))
    return jars


def fetch(formats: list[str], notify: Callable[[str], None], hudi_jar: Path) -> list[Path]:
    """Those jars, on this machine: fetched once into the per-user cache; and
    the session catalog's jar when a format needs it (built once)."""
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
    held = table_formats.in_lake_session_catalog(formats)
    if held:
        found["the session catalog"] = session_catalog_jar(hudi_jar, cache, held)
    return list(found.values())


def session_catalog_jar(hudi_jar: Path, cache: Path, held: list[TableFormat]) -> Path:
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
            f"{_models_of(held)} need the session catalog that holds their tables beside "
            "Hudi's, "
            f"compiled here from {CATALOG_SOURCE.name} by a JDK's javac, and there is none: "
            "install a JDK (17), or set JAVA_HOME to one."
        )
    classpath = os.pathsep.join([str(spark_jars / "*"), str(hudi_jar)])
    try:
        local_fs.compile_jar(javac, CATALOG_SOURCE, classpath, target)
    except local_fs.CompileError as error:
        raise DbtRuntimeError(
            f"{_models_of(held)} need the session catalog of the formats: {error}"
        ) from error
    return target


def _models_of(formats: list[TableFormat]) -> str:
    return " and ".join(fmt.title for fmt in formats) + " models"


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
