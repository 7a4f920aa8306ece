"""The jars of the table formats besides Hudi (table_formats.py says which a
session loads), found or fetched like the Hudi bundle (hudi_bundle.fetch_jar:
the per-user cache, ~/.m2, Maven Central with its checksum)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import hudi_bundle

ICEBERG_VERSION = "1.10.0"


def iceberg_runtime(bundle: hudi_bundle.Bundle) -> hudi_bundle.MavenJar:
    """Iceberg's Spark runtime for the installed Spark and Scala."""
    return hudi_bundle.MavenJar(
        "org.apache.iceberg",
        f"iceberg-spark-runtime-{bundle.spark}_{bundle.scala}",
        ICEBERG_VERSION,
    )


def wanted(formats: list[str]) -> dict[str, hudi_bundle.MavenJar]:
    """The jars the formats other than Hudi add, by what they are (Hudi's
    bundle is always loaded)."""
    if "iceberg" not in formats:
        return {}
    return {"Iceberg's Spark runtime": iceberg_runtime(hudi_bundle.installed_bundle())}


def fetch(formats: list[str], notify: Callable[[str], None]) -> list[Path]:
    """Those jars, on this machine: fetched once into the per-user cache."""
    found = []
    for label, jar in wanted(formats).items():
        try:
            found.append(
                hudi_bundle.fetch_jar(jar, label, hudi_bundle.user_cache_dir(), notify=notify)
            )
        except hudi_bundle.JarError as exc:
            raise DbtRuntimeError(
                f"The project's models need {label} {jar.coordinates}, which could not be "
                f"fetched ({exc}); set {hudi_bundle.REPOSITORY_ENV_VAR} to a Maven mirror, or "
                f"put {jar.jar_name} in {hudi_bundle.user_cache_dir()}"
            ) from exc
    return found
