"""Where the Apache Hudi Spark bundle comes from, and where it is cached.

The bundle must match the Spark and Scala version of the installed pyspark, so
its coordinates are derived from pyspark rather than written in several places.
It is fetched from Maven Central with the machine's `mvn` and never committed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Optional

HUDI_VERSION = "1.2.0"
GROUP_ID = "org.apache.hudi"

# Set to point the adapter at a bundle anywhere on disk (overrides the cache).
JAR_ENV_VAR = "LAKEHOUSE_HUDI_JAR"
# Default cache, relative to the directory dbt runs in (the project root).
DEFAULT_CACHE_DIR = Path(".cache") / "jars"


class HudiBundleError(RuntimeError):
    """The Hudi bundle is missing or cannot be fetched."""


def spark_and_scala_version() -> tuple[str, str]:
    """(Spark major.minor, Scala binary version) of the installed pyspark."""
    import pyspark

    spark = ".".join(pyspark.__version__.split(".")[:2])
    jars = Path(pyspark.__file__).parent / "jars"
    for jar in jars.glob("scala-library-*.jar"):
        match = re.match(r"scala-library-(\d+\.\d+)\.", jar.name)
        if match:
            return spark, match.group(1)
    # pyspark 3.x wheels are built for Scala 2.12, 4.x for 2.13.
    return spark, "2.12" if spark.startswith("3.") else "2.13"


def artifact_id() -> str:
    spark, scala = spark_and_scala_version()
    return f"hudi-spark{spark}-bundle_{scala}"


def jar_name() -> str:
    return f"{artifact_id()}-{HUDI_VERSION}.jar"


def locate(explicit: Optional[str] = None, cache_dir: Optional[Path] = None) -> Path:
    """The bundle to put on spark.jars: explicit path, then env var, then cache."""
    candidates = []
    if explicit:
        candidates.append(Path(explicit))
    if os.environ.get(JAR_ENV_VAR):
        candidates.append(Path(os.environ[JAR_ENV_VAR]))
    candidates.append((cache_dir or DEFAULT_CACHE_DIR) / jar_name())
    for path in candidates:
        if path.is_file():
            return path.resolve()
    tried = ", ".join(str(p) for p in candidates)
    raise HudiBundleError(
        f"The Apache Hudi Spark bundle {jar_name()} was not found (looked at: {tried}). "
        "Run `make setup` in the project (it fetches the bundle with mvn), or set "
        f"`hudi_jar` in the profile or the {JAR_ENV_VAR} environment variable."
    )


def fetch(cache_dir: Path) -> Path:
    """Download the bundle with Maven into cache_dir, unless it is already there."""
    target = cache_dir / jar_name()
    if target.is_file():
        return target
    if shutil.which("mvn") is None:
        raise HudiBundleError("Maven (`mvn`) is needed to fetch the Hudi bundle; install it.")
    cache_dir.mkdir(parents=True, exist_ok=True)
    coordinates = f"{GROUP_ID}:{artifact_id()}:{HUDI_VERSION}"
    result = subprocess.run(
        [
            "mvn", "-q", "-B", "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy",
            f"-Dartifact={coordinates}", f"-DoutputDirectory={cache_dir}",
        ],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 or not target.is_file():
        raise HudiBundleError(f"mvn could not fetch {coordinates}:\n{result.stdout}{result.stderr}")
    return target

