"""Which Apache Hudi Spark bundle the embedded session needs, and where it comes from.

The bundle must match the Spark and Scala version of the installed pyspark, so
its coordinates are derived from pyspark rather than written in several places.
An installed adapter has no repository around it, so it finds the jar by itself,
in this order (the first hit wins):

1. `hudi_jar` in the profile;
2. the `LAKEHOUSE_HUDI_JAR` environment variable;
3. the per-user jar cache (`~/.cache/dbt-lakehouse/jars`, or `$XDG_CACHE_HOME`,
   or `LAKEHOUSE_JAR_CACHE`);
4. the local Maven repository (`~/.m2/repository/org/apache/hudi/...`);
5. a download from Maven Central (or `LAKEHOUSE_MAVEN_REPOSITORY`) into the
   per-user cache, so only the first run on a machine pays for it.

A path given explicitly (1, 2) that is not a file is an error, not a reason to
look elsewhere: silently running with a different jar than the one configured
would hide the mistake.

The search and the download (3 to 5) are maven.py's, which says why they
are not Spark's own `spark.jars.packages`. They also serve the other jar a pip
user lacks: Spark Connect's server
(`org.apache.spark:spark-connect_<scala>:<pyspark version>`), which the warm
local server (warm/server.py) runs; pyspark's wheel ships its client, not its
server. For it, the order is `LAKEHOUSE_CONNECT_JAR`, the per-user cache,
~/.m2, then the download (`resolve_connect`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dbt.adapters.lakehouse import maven

HUDI_VERSION = "1.2.0"
GROUP_ID = "org.apache.hudi"
# Spark major.minor versions this adapter runs on: Hudi HUDI_VERSION publishes a
# bundle for each, and the adapter's macros are tested against it. pyspark 4.x
# is Scala 2.13 and has no Hudi bundle at this version; older Spark lacks SQL
# the macros rely on.
SUPPORTED_SPARK = ("3.5",)
SUPPORTED_RANGE = "pyspark>=3.5,<3.6"

# A bundle anywhere on disk (after the profile's `hudi_jar`).
JAR_ENV_VAR = "LAKEHOUSE_HUDI_JAR"
# Spark Connect's server jar anywhere on disk (see resolve_connect).
CONNECT_JAR_ENV_VAR = "LAKEHOUSE_CONNECT_JAR"


class HudiBundleError(maven.JarError):
    """The Hudi bundle is missing or cannot be fetched."""


class ConnectJarError(maven.JarError):
    """Spark Connect's server jar is missing or cannot be fetched."""


class UnsupportedSparkError(HudiBundleError):
    """The installed pyspark is one no Hudi bundle (or this adapter) supports."""


@dataclass(frozen=True)
class Bundle:
    """The Hudi Spark bundle for one Spark/Scala version."""

    pyspark_version: str
    spark: str  # major.minor
    scala: str  # binary version, 2.12 or 2.13

    @property
    def artifact_id(self) -> str:
        return f"hudi-spark{self.spark}-bundle_{self.scala}"

    @property
    def jar(self) -> maven.MavenJar:
        return maven.MavenJar(GROUP_ID, self.artifact_id, HUDI_VERSION)

    @property
    def jar_name(self) -> str:
        return self.jar.jar_name

    @property
    def coordinates(self) -> str:
        return self.jar.coordinates

    @property
    def repository_path(self) -> str:
        """Where the jar sits inside any Maven-layout repository."""
        return self.jar.repository_path

    def url(self, repository: str) -> str:
        return self.jar.url(repository)

    @property
    def connect_server(self) -> maven.MavenJar:
        """Spark Connect's server for the same pyspark (the warm server runs it)."""
        return maven.MavenJar(
            "org.apache.spark", f"spark-connect_{self.scala}", self.pyspark_version
        )


# --- which bundle -------------------------------------------------------------


def bundle_for(pyspark_version: str, scala: str | None = None) -> Bundle:
    """The bundle for a pyspark version; UnsupportedSparkError outside SUPPORTED_SPARK."""
    match = re.match(r"(\d+)\.(\d+)", pyspark_version)
    spark = f"{match.group(1)}.{match.group(2)}" if match else pyspark_version
    if spark not in SUPPORTED_SPARK:
        raise UnsupportedSparkError(
            f"dbt-lakehouse found pyspark {pyspark_version} (Spark {spark}), but it runs "
            f"only on Spark {', '.join(SUPPORTED_SPARK)} ({SUPPORTED_RANGE}): that is what "
            f"Apache Hudi {HUDI_VERSION} publishes a Spark bundle for and what this adapter "
            f"is tested on. Install a supported pyspark, e.g. `pip install '{SUPPORTED_RANGE}'`."
        )
    # pyspark 3.x wheels on PyPI are built for Scala 2.12.
    return Bundle(pyspark_version, spark, scala or "2.12")


def installed_bundle() -> Bundle:
    """The bundle for the installed pyspark, checked before any JVM starts."""
    try:
        import pyspark
    except ImportError as exc:
        raise HudiBundleError(
            "`method: session` runs Spark inside dbt and needs pyspark, which is not "
            f"installed: `pip install '{SUPPORTED_RANGE}'` (or reinstall dbt-lakehouse)."
        ) from exc
    return bundle_for(pyspark.__version__, _scala_of(Path(pyspark.__file__).parent / "jars"))


def _scala_of(jars_dir: Path) -> str | None:
    """Scala binary version of a Spark distribution, from its scala-library jar."""
    for jar in jars_dir.glob("scala-library-*.jar"):
        match = re.match(r"scala-library-(\d+\.\d+)\.", jar.name)
        if match:
            return match.group(1)
    return None


def artifact_id() -> str:
    return installed_bundle().artifact_id


def jar_name() -> str:
    return installed_bundle().jar_name


# --- where to look --------------------------------------------------------------


def _explicit_jar(explicit: str | None) -> Path | None:
    """The jar the profile or the env var names; an error if it is not a file."""
    for source, value in (
        ("`hudi_jar` in the profile", explicit),
        (JAR_ENV_VAR, os.environ.get(JAR_ENV_VAR)),
    ):
        if not value:
            continue
        path = Path(value).expanduser()
        if not path.is_file():
            raise HudiBundleError(
                f"{source} names the Hudi bundle {path}, which is not a file. "
                "Fix the path, or remove the setting to let dbt-lakehouse find or "
                "download the bundle itself."
            )
        return path.resolve()
    return None


def locate(explicit: str | None = None, cache_dir: Path | None = None) -> Path:
    """The bundle already on this machine: explicit path, env var, cache, ~/.m2.

    Never downloads; raises HudiBundleError when nothing is found.
    """
    found = _explicit_jar(explicit)
    if found:
        return found
    bundle = installed_bundle()
    for path in maven.cached_locations(bundle, cache_dir):
        if path.is_file():
            return path.resolve()
    raise HudiBundleError(
        _missing_message(bundle, maven.cached_locations(bundle, cache_dir), None, None, cache_dir)
    )


# --- fetching -----------------------------------------------------------------


def fetch(
    cache_dir: Path | None = None,
    repository: str | None = None,
    notify: Callable[[str], None] | None = None,
) -> Path:
    """Make sure cache_dir holds the bundle: keep it, copy it from ~/.m2, or download it."""
    bundle = installed_bundle()
    cache = Path(cache_dir) if cache_dir else maven.user_cache_dir()
    try:
        return maven.fetch_jar(bundle.jar, "the Hudi Spark bundle", cache, repository, notify)
    except maven.JarError as exc:
        url = bundle.url(maven.repository_url(repository))
        raise HudiBundleError(
            _missing_message(
                bundle, maven.cached_locations(bundle, cache), url, exc.__cause__, cache
            )
        ) from exc.__cause__


def resolve(
    explicit: str | None = None,
    cache_dir: Path | None = None,
    repository: str | None = None,
    notify: Callable[[str], None] | None = None,
) -> Path:
    """The bundle for the embedded session: found on this machine, else downloaded."""
    bundle = installed_bundle()  # the Spark version check, whatever the jar's source
    found = _explicit_jar(explicit)
    if found:
        return found
    for path in maven.cached_locations(bundle, cache_dir):
        if path.is_file():
            return path.resolve()
    return fetch(cache_dir, repository, notify)


def resolve_connect(
    cache_dir: Path | None = None,
    repository: str | None = None,
    notify: Callable[[str], None] | None = None,
) -> Path:
    """Spark Connect's server jar for the installed pyspark: LAKEHOUSE_CONNECT_JAR,
    the per-user cache, ~/.m2, else downloaded into the cache."""
    jar = installed_bundle().connect_server
    explicit = os.environ.get(CONNECT_JAR_ENV_VAR)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConnectJarError(
                f"{CONNECT_JAR_ENV_VAR} names Spark Connect's server jar {path}, which is not a "
                "file. Fix the path, or unset it to let dbt-lakehouse find or download the jar."
            )
        return path.resolve()
    cache = cache_dir or maven.user_cache_dir()
    for path in maven.cached_locations(jar, cache):
        if path.is_file():
            return path.resolve()
    try:
        return maven.fetch_jar(jar, "Spark Connect's server", cache, repository, notify)
    except maven.JarError as exc:
        target = cache / jar.jar_name
        raise ConnectJarError(
            f"Spark Connect's server {jar.coordinates} is not on this machine and {exc}. "
            f"Put it at {target} (curl -fL --create-dirs -o {target} "
            f"{jar.url(maven.repository_url(repository))}; or mvn dependency:get "
            f"-Dartifact={jar.coordinates}), set {CONNECT_JAR_ENV_VAR}=/path/to/{jar.jar_name}, "
            f"or behind a mirror set {maven.REPOSITORY_ENV_VAR}."
        ) from exc


# --- the error a user reads -----------------------------------------------------


def _missing_message(
    bundle: Bundle,
    looked_at: list[Path],
    url: str | None,
    failure: BaseException | None,
    cache_dir: Path | None,
) -> str:
    target = (cache_dir or maven.user_cache_dir()) / bundle.jar_name
    source = url or bundle.url(maven.repository_url())
    lines = [
        f"dbt-lakehouse needs the Apache Hudi Spark bundle for the installed pyspark "
        f"{bundle.pyspark_version} (Spark {bundle.spark}, Scala {bundle.scala}): "
        f"{bundle.coordinates}.",
        "Looked for it at:",
        *(f"  - {path}" for path in looked_at),
    ]
    if url:
        lines.append(f"Downloading {url} failed: {maven.describe(failure)}")
    lines += [
        "Supply it in one of these ways:",
        "  - set `hudi_jar: /path/to/" + bundle.jar_name + "` in the profile;",
        f"  - set the environment variable {JAR_ENV_VAR}=/path/to/{bundle.jar_name};",
        f"  - download it once into the cache: curl -fL --create-dirs -o {target} {source}",
        f"    (or: mvn dependency:get -Dartifact={bundle.coordinates});",
        f"  - behind a mirror, set {maven.REPOSITORY_ENV_VAR} to its Maven repository URL.",
    ]
    return "\n".join(lines)
