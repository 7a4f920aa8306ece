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

Why a direct HTTPS download rather than Spark's own `spark.jars.packages`
(Ivy): it happens before the JVM starts, so a failure (offline, proxy, 404)
becomes one readable dbt error instead of an Ivy stack trace; it goes through
Python's TLS set-up, which honours the system CA bundle and HTTPS_PROXY that
a corporate proxy needs, where the JVM's trust store often does not; we verify
the published `.sha1` ourselves and publish the jar with an atomic rename, so
two dbt processes starting at once, or a download killed half-way, never leave
a truncated jar that a later run would trust; and Ivy would also resolve the
bundle's POM dependency tree, which the shaded bundle does not need.

The same search and download serve the other jar a pip user lacks: Spark
Connect's server (`org.apache.spark:spark-connect_<scala>:<pyspark version>`),
which the warm local server (warm/server.py) runs. pyspark's wheel ships its
client, not its server. For it, the order is `LAKEHOUSE_CONNECT_JAR`, the
per-user cache, ~/.m2, then the download (`resolve_connect`). tools/setup.sh
uses `fetch_jar` too, for the files only the repository's tests read
(PostgreSQL's JDBC driver, Hive's metastore schema scripts), so no Maven
install is needed.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

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
# Moves the per-user jar cache.
CACHE_ENV_VAR = "LAKEHOUSE_JAR_CACHE"
# Spark Connect's server jar anywhere on disk (see resolve_connect).
CONNECT_JAR_ENV_VAR = "LAKEHOUSE_CONNECT_JAR"
# A Maven repository to download from instead of Maven Central (a mirror).
REPOSITORY_ENV_VAR = "LAKEHOUSE_MAVEN_REPOSITORY"
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"

# The repository's own cache, relative to its root: tools/setup.sh fills it and
# the repository's toolkit (adlake/) and tests read it. An installed adapter
# does not use it.
DEFAULT_CACHE_DIR = Path(".cache") / "jars"

# Seconds without a byte before a download is given up (not a total budget:
# the bundle is ~80 MB and slow links are fine as long as bytes arrive).
DOWNLOAD_TIMEOUT = 60


class JarError(RuntimeError):
    """A jar the adapter needs is missing or cannot be fetched."""


class HudiBundleError(JarError):
    """The Hudi bundle is missing or cannot be fetched."""


class ConnectJarError(JarError):
    """Spark Connect's server jar is missing or cannot be fetched."""


class UnsupportedSparkError(HudiBundleError):
    """The installed pyspark is one no Hudi bundle (or this adapter) supports."""


@dataclass(frozen=True)
class MavenJar:
    """One artifact of a Maven-layout repository: a jar unless `extension` says
    otherwise, with an optional classifier (tools/setup.sh fetches Hive's
    `bin` `tar.gz` distribution through it)."""

    group_id: str
    artifact_id: str
    version: str
    classifier: str | None = None
    extension: str = "jar"

    @classmethod
    def from_coordinates(cls, coordinates: str) -> MavenJar:
        """Parse `group:artifact:version[:extension[:classifier]]` (the order of
        Maven's own `-Dartifact`); ValueError when it is not that."""
        parts = coordinates.split(":")
        if not 3 <= len(parts) <= 5 or not all(parts):
            raise ValueError(
                f"{coordinates!r} is not Maven coordinates "
                "(group:artifact:version[:extension[:classifier]])"
            )
        group_id, artifact_id, version = parts[:3]
        extension = parts[3] if len(parts) > 3 else "jar"
        classifier = parts[4] if len(parts) > 4 else None
        return cls(group_id, artifact_id, version, classifier, extension)

    @property
    def jar_name(self) -> str:
        """The file's name in Maven's layout: `<artifact>-<version>[-<classifier>].<extension>`."""
        classifier = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact_id}-{self.version}{classifier}.{self.extension}"

    @property
    def coordinates(self) -> str:
        """`group:artifact:version`, then `:extension[:classifier]` when not a plain jar."""
        gav = f"{self.group_id}:{self.artifact_id}:{self.version}"
        if self.classifier:
            return f"{gav}:{self.extension}:{self.classifier}"
        if self.extension != "jar":
            return f"{gav}:{self.extension}"
        return gav

    @property
    def repository_path(self) -> str:
        """Where the jar sits inside any Maven-layout repository."""
        group = self.group_id.replace(".", "/")
        return f"{group}/{self.artifact_id}/{self.version}/{self.jar_name}"

    def url(self, repository: str) -> str:
        return f"{repository.rstrip('/')}/{self.repository_path}"


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
    def maven(self) -> MavenJar:
        return MavenJar(GROUP_ID, self.artifact_id, HUDI_VERSION)

    @property
    def jar_name(self) -> str:
        return self.maven.jar_name

    @property
    def coordinates(self) -> str:
        return self.maven.coordinates

    @property
    def repository_path(self) -> str:
        """Where the jar sits inside any Maven-layout repository."""
        return self.maven.repository_path

    def url(self, repository: str) -> str:
        return self.maven.url(repository)

    @property
    def connect_server(self) -> MavenJar:
        """Spark Connect's server for the same pyspark (the warm server runs it)."""
        return MavenJar("org.apache.spark", f"spark-connect_{self.scala}", self.pyspark_version)


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


def user_cache_root() -> Path:
    """The adapter's per-user cache folder (jars, warm servers): in the XDG cache folder."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dbt-lakehouse"


def user_cache_dir() -> Path:
    """The per-user jar cache: LAKEHOUSE_JAR_CACHE, else `jars` in user_cache_root()."""
    if os.environ.get(CACHE_ENV_VAR):
        return Path(os.environ[CACHE_ENV_VAR]).expanduser()
    return user_cache_root() / "jars"


def maven_local_repository() -> Path:
    """Maven's default local repository (where `mvn dependency:get` puts jars)."""
    return Path.home() / ".m2" / "repository"


def repository_url(repository: str | None = None) -> str:
    return repository or os.environ.get(REPOSITORY_ENV_VAR) or MAVEN_CENTRAL


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


def cached_locations(jar: Bundle | MavenJar, cache_dir: Path | None = None) -> list[Path]:
    """Where a previously fetched jar may already be, in the order looked at."""
    return [
        (cache_dir or user_cache_dir()) / jar.jar_name,
        maven_local_repository() / jar.repository_path,
    ]


def locate(explicit: str | None = None, cache_dir: Path | None = None) -> Path:
    """The bundle already on this machine: explicit path, env var, cache, ~/.m2.

    Never downloads; raises HudiBundleError when nothing is found.
    """
    found = _explicit_jar(explicit)
    if found:
        return found
    bundle = installed_bundle()
    for path in cached_locations(bundle, cache_dir):
        if path.is_file():
            return path.resolve()
    raise HudiBundleError(
        _missing_message(bundle, cached_locations(bundle, cache_dir), None, None, cache_dir)
    )


# --- fetching -----------------------------------------------------------------


def fetch(
    cache_dir: Path | None = None,
    repository: str | None = None,
    notify: Callable[[str], None] | None = None,
) -> Path:
    """Make sure cache_dir holds the bundle: keep it, copy it from ~/.m2, or download it."""
    bundle = installed_bundle()
    cache = Path(cache_dir) if cache_dir else user_cache_dir()
    try:
        return fetch_jar(bundle.maven, "the Hudi Spark bundle", cache, repository, notify)
    except JarError as exc:
        url = bundle.url(repository_url(repository))
        raise HudiBundleError(
            _missing_message(bundle, cached_locations(bundle, cache), url, exc.__cause__, cache)
        ) from exc.__cause__


def fetch_jar(
    jar: MavenJar,
    label: str,
    cache: Path,
    repository: str | None = None,
    notify: Callable[[str], None] | None = None,
) -> Path:
    """Make sure `cache` holds `jar`: keep it, copy it from ~/.m2, or download it.

    A failed download raises JarError, caused by the failure itself: the
    caller says what it needs the jar for and how to supply it."""
    target = cache / jar.jar_name
    if target.is_file():
        return target.resolve()
    local = maven_local_repository() / jar.repository_path
    cache.mkdir(parents=True, exist_ok=True)
    if local.is_file():
        _publish(target, lambda out: _copy_into(local, out))
        return target.resolve()
    url = jar.url(repository_url(repository))
    if notify:
        notify(f"Downloading {label} {jar.coordinates} from {url} into {cache} (once per machine)")
    try:
        _download_verified(url, target)
    except (OSError, http.client.HTTPException, JarError) as exc:
        raise JarError(f"downloading {url} failed: {_describe(exc)}") from exc
    return target.resolve()


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
    for path in cached_locations(bundle, cache_dir):
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
    cache = cache_dir or user_cache_dir()
    for path in cached_locations(jar, cache):
        if path.is_file():
            return path.resolve()
    try:
        return fetch_jar(jar, "Spark Connect's server", cache, repository, notify)
    except JarError as exc:
        target = cache / jar.jar_name
        raise ConnectJarError(
            f"Spark Connect's server {jar.coordinates} is not on this machine and {exc}. "
            f"Put it at {target} (curl -fL --create-dirs -o {target} "
            f"{jar.url(repository_url(repository))}; or mvn dependency:get "
            f"-Dartifact={jar.coordinates}), set {CONNECT_JAR_ENV_VAR}=/path/to/{jar.jar_name}, "
            f"or behind a mirror set {REPOSITORY_ENV_VAR}."
        ) from exc


def _download_verified(url: str, target: Path) -> None:
    """Download url to target, checked against the repository's .sha1."""
    expected = _read_url(url + ".sha1").decode("ascii", "replace").split()
    if not expected or not re.fullmatch(r"[0-9a-fA-F]{40}", expected[0]):
        raise JarError(f"{url}.sha1 is not a SHA-1 checksum")

    def write(out: BinaryIO) -> None:
        digest = hashlib.sha1()
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
            for chunk in iter(lambda: response.read(1 << 20), b""):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != expected[0].lower():
            raise JarError(
                f"the download of {url} does not match its published SHA-1 "
                f"({digest.hexdigest()} != {expected[0].lower()}); it was discarded"
            )

    _publish(target, write)


def _read_url(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
        data: bytes = response.read()
        return data


def _copy_into(source: Path, out: BinaryIO) -> None:
    with open(source, "rb") as src:
        shutil.copyfileobj(src, out, 1 << 20)


def _publish(target: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write through a temp file in the same folder, then rename into place.

    A reader sees either no jar or a complete one: the rename is atomic, and a
    failed or interrupted write only leaves (or removes) its own temp file.
    """
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        # mkstemp makes the file private; a jar is not a secret, and a cache
        # shared through LAKEHOUSE_JAR_CACHE must be readable by others.
        os.chmod(temp, 0o644)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


# --- the error a user reads -----------------------------------------------------


def _missing_message(
    bundle: Bundle,
    looked_at: list[Path],
    url: str | None,
    failure: BaseException | None,
    cache_dir: Path | None,
) -> str:
    target = (cache_dir or user_cache_dir()) / bundle.jar_name
    source = url or bundle.url(repository_url())
    lines = [
        f"dbt-lakehouse needs the Apache Hudi Spark bundle for the installed pyspark "
        f"{bundle.pyspark_version} (Spark {bundle.spark}, Scala {bundle.scala}): "
        f"{bundle.coordinates}.",
        "Looked for it at:",
        *(f"  - {path}" for path in looked_at),
    ]
    if url:
        lines.append(f"Downloading {url} failed: {_describe(failure)}")
    lines += [
        "Supply it in one of these ways:",
        "  - set `hudi_jar: /path/to/" + bundle.jar_name + "` in the profile;",
        f"  - set the environment variable {JAR_ENV_VAR}=/path/to/{bundle.jar_name};",
        f"  - download it once into the cache: curl -fL --create-dirs -o {target} {source}",
        f"    (or: mvn dependency:get -Dartifact={bundle.coordinates});",
        f"  - behind a mirror, set {REPOSITORY_ENV_VAR} to its Maven repository URL.",
    ]
    return "\n".join(lines)


def _describe(failure: BaseException | None) -> str:
    if isinstance(failure, urllib.error.HTTPError):
        return f"HTTP {failure.code} {failure.reason}"
    if isinstance(failure, urllib.error.URLError):
        return str(failure.reason)
    return str(failure)
