"""Jars from Maven repositories: the per-user cache, Maven's own ~/.m2, then
a download from Maven Central (or LAKEHOUSE_MAVEN_REPOSITORY) checked against
its published .sha1. Every jar the adapter adds to a Spark session comes
through here (the Hudi bundle, the other formats' jars, the object stores'
connectors, Spark Connect's server), and tools/setup.sh fetches the test
suite's files with it. No imports of the adapter's own.

Why a direct HTTPS download rather than Spark's own `spark.jars.packages`
(Ivy): it happens before the JVM starts, so a failure (offline, proxy, 404)
becomes one readable dbt error instead of an Ivy stack trace; it goes through
Python's TLS set-up, which honours the system CA bundle and HTTPS_PROXY that
a corporate proxy needs, where the JVM's trust store often does not; the
published `.sha1` is verified here and the jar published with an atomic
rename, so two dbt processes starting at once, or a download killed
half-way, never leave a truncated jar that a later run would trust; and Ivy
would also resolve a shaded bundle's POM dependency tree, which it does not
need.
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
from typing import BinaryIO, Protocol

# Moves the per-user jar cache.
CACHE_ENV_VAR = "LAKEHOUSE_JAR_CACHE"
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


class InRepository(Protocol):
    """A jar with a name and a place in a Maven-layout repository."""

    @property
    def jar_name(self) -> str: ...

    @property
    def repository_path(self) -> str: ...


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


def cached_locations(jar: InRepository, cache_dir: Path | None = None) -> list[Path]:
    """Where a previously fetched jar may already be, in the order looked at."""
    return [
        (cache_dir or user_cache_dir()) / jar.jar_name,
        maven_local_repository() / jar.repository_path,
    ]


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
        raise JarError(f"downloading {url} failed: {describe(exc)}") from exc
    return target.resolve()


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


def describe(failure: BaseException | None) -> str:
    if isinstance(failure, urllib.error.HTTPError):
        return f"HTTP {failure.code} {failure.reason}"
    if isinstance(failure, urllib.error.URLError):
        return str(failure.reason)
    return str(failure)
