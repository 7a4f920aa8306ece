"""The two jars a warm lake server adds to the embedded session's: Spark
Connect's server (found or downloaded by hudi_bundle, as the Hudi bundle is)
and the interceptor that lets only this user's dbt processes in
(java/WarmServerGuard.java, compiled once per machine into the jar cache with
the JDK's javac, against the Connect jar's shaded gRPC).

Neither is needed by the in-process engine: when one cannot be had (offline,
no javac), dbt runs as before, and says why once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.session import local_fs

GUARD_CLASS = "lakehouse.connect.WarmServerGuard"
GUARD_SOURCE = Path(__file__).parents[1] / "java" / "WarmServerGuard.java"
# The system property the guard reads the server's token from.
TOKEN_PROPERTY = "lakehouse.warm.token"


class WarmJarsUnavailable(RuntimeError):
    """A jar the warm server needs cannot be had here; the message says how to fix it."""


@dataclass(frozen=True)
class ServerJars:
    connect: Path
    guard: Path


def server_jars(notify: Callable[[str], None]) -> ServerJars:
    """Both jars, fetched or built on first use; WarmJarsUnavailable otherwise."""
    try:
        connect = hudi_bundle.resolve_connect(notify=notify)
    except maven.JarError as exc:
        raise WarmJarsUnavailable(str(exc)) from exc
    return ServerJars(connect, guard_jar(connect, maven.user_cache_dir()))


def guard_jar(connect: Path, cache_dir: Path) -> Path:
    """The compiled guard, named for its source and the Connect jar it was
    compiled against: a new one of either gets a new jar."""
    javac = local_fs._javac()
    if javac is None:
        raise WarmJarsUnavailable(
            f"no javac to compile {GUARD_SOURCE.name} (install a JDK, or set JAVA_HOME to one)"
        )
    digest = hashlib.sha256(GUARD_SOURCE.read_bytes() + connect.name.encode()).hexdigest()[:12]
    target = cache_dir / f"lakehouse-warm-guard-{digest}.jar"
    if target.is_file():
        return target
    try:
        local_fs.compile_jar(javac, GUARD_SOURCE, connect, target)
    except local_fs.CompileError as error:
        raise WarmJarsUnavailable(str(error)) from error
    return target
