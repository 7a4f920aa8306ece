"""A class-data archive for the embedded session's JVM: the classes Spark and
Hudi load, mapped from a file instead of read, verified and linked one by one
at every start.

A cold dbt command on the embedded session spends most of its JVM's first
seconds loading classes. Java's class-data sharing (CDS) keeps the classes a
JVM loaded in an archive that later JVMs map at start (what it saves, and the
command that measures it: adapter/README.md, "What the embedded session sets
for speed").

The archive belongs to one Java and one class path (pyspark's jars, the
driver's extra class path, the session's jars): its name is a digest of them,
in the jar cache (`<jar cache>/class-data/`). The first session without one
records what it loads (`-XX:+RecordDynamicDumpInfo`, about 7 CPU-seconds more
in that session) and, when its first dbt command ends, has the JVM write the
archive (`jcmd <pid> VM.cds dynamic_dump`, about 9 s, said in the log) to a
file of its own, moved into place once complete: a half-written archive
crashes the JVM that maps it (SIGBUS, whatever -Xshare says), so a JVM only
ever sees a complete one. One session records at a time (a lock file naming
its process); the others start without an archive meanwhile. Needs `jcmd` (a
JDK, not a JRE): without it nothing changes. A session with a folder holding
files on its class path (SPARK_CONF_DIR, HADOOP_CONF_DIR, a profile's
extraClassPath) gets none: its JVM could map no archive, and exits rather
than write one. A JVM that cannot use an archive (flags that change the
heap's layout, for example) runs without it; its messages about that are off.

LAKEHOUSE_CLASS_DATA=0 turns it off.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.session import jdk

ENV_VAR = "LAKEHOUSE_CLASS_DATA"
FOLDER = "class-data"
# The JVM's own CDS messages (an archive it cannot use, classes it skips
# while dumping) would land in dbt's output.
QUIET = "-Xlog:cds*=off"
# Archives kept: the most recently used, and none unused this long (a new
# pyspark, Hudi bundle or class path gets a new one; each is 150-200 MB).
# One machine can use several at once: this repository's test suite uses
# four (the plain session, one with the S3 jars, an installed wheel's
# virtualenv, ...), and with three kept it removed and recorded one of them
# again mid-run.
KEEP = 5
UNUSED_DAYS = 14


def java_binary() -> Path | None:
    """The `java` pyspark starts, resolved (a JDK's path, not a link to it)."""
    found = jdk.tool("java")
    return found.resolve() if found is not None else None


def _identity(path: str) -> str:
    """A file's path with its size and modification time (a rebuilt jar is another jar)."""
    try:
        stat = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{path}:{stat.st_size}:{stat.st_mtime_ns}"


def archive_path(cache_dir: Path, java: Path, class_path: Iterable[str]) -> Path:
    """Where the archive of this Java and class path lives."""
    import pyspark

    parts = [_identity(str(java)), pyspark.__version__, str(Path(pyspark.__file__).parent)]
    parts += [_identity(entry) for entry in class_path]
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return cache_dir / FOLDER / f"spark-{digest}.jsa"


class ClassData:
    """What one session does with its archive: map it, or record and write it."""

    def __init__(self, archive: Path, jcmd: Path | None) -> None:
        self.archive, self.jcmd = archive, jcmd
        self.lock = archive.with_name(archive.name + ".training")
        self.training = False

    def jvm_options(self, record: bool = True) -> list[str]:
        """The JVM flags for this session (none: no archive, and another
        session is making it, or no jcmd to make one, or not `record`)."""
        if self.archive.is_file():
            _touch(self.archive)
            return [f"-XX:SharedArchiveFile={self.archive}", QUIET]
        if not record or self.jcmd is None or not self._take_lock():
            return []
        self.training = True
        return ["-XX:+RecordDynamicDumpInfo", QUIET]

    def _take_lock(self) -> bool:
        self.lock.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = _pid_in(self.lock)
                if holder is not None and processes.alive(holder):
                    return False
                self.lock.unlink(missing_ok=True)  # a training process that died
                continue
            with os.fdopen(fd, "w") as held:
                held.write(str(os.getpid()))
            return True
        return False

    def give_up(self) -> None:
        """Lets another session record (this one writes no archive)."""
        self.training = False
        self.lock.unlink(missing_ok=True)

    def write(self, jvm_pid: int, class_path: str, notify: Callable[[str], None]) -> bool:
        """Has the training JVM (its class path as it reports it) write the
        archive, then moves it into place; False when it could not (told why)."""
        if not self.training:
            return False
        self.training = False
        folder = next(iter(_non_empty_folders(class_path)), None)
        if folder is not None:
            # The JVM would refuse the dump by exiting, mid-session.
            notify(f"class-data archive not written: a folder is on the class path ({folder})")
            self.give_up()
            return False
        partial = self.archive.with_name(f"{self.archive.name}.{uuid.uuid4().hex[:8]}.tmp")
        notify(f"Writing the JVM's class-data archive for faster starts (once): {self.archive}")
        try:
            done = subprocess.run(
                [str(self.jcmd), str(jvm_pid), "VM.cds", "dynamic_dump", str(partial)],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0 or not partial.is_file():
                notify(f"class-data archive not written: {(done.stdout + done.stderr)[-1500:]}")
                partial.unlink(missing_ok=True)
                return False
            os.replace(partial, self.archive)
            _remove_unused(self.archive.parent, keep=self.archive)
            return True
        except (OSError, subprocess.SubprocessError) as error:
            notify(f"class-data archive not written: {error}")
            partial.unlink(missing_ok=True)
            return False
        finally:
            self.give_up()
            _remove_attach_socket(jvm_pid)


def _remove_attach_socket(jvm_pid: int) -> None:
    """jcmd left the JVM listening on a socket file that only the JVM's
    normal exit removes: a session killed with kill -9 would leave it in
    /tmp for good (HotSpot puts it there whatever java.io.tmpdir says).
    Nothing attaches again; if something did, the JVM would make a new one."""
    Path(f"/tmp/.java_pid{jvm_pid}").unlink(missing_ok=True)


def for_session(cache_dir: Path, class_path: list[str]) -> ClassData | None:
    """The archive of a session with this class path; None when turned off,
    without a Java to key it by, or with a folder on the class path."""
    if os.environ.get(ENV_VAR, "1") == "0":
        return None
    if _non_empty_folders(os.pathsep.join([*class_path, *launcher_class_path()])):
        return None  # such a JVM can map no archive, and exits rather than write one
    java = java_binary()
    if java is None:
        return None
    jcmd = java.with_name("jcmd")
    return ClassData(archive_path(cache_dir, java, class_path), jcmd if jcmd.is_file() else None)


def launcher_class_path() -> list[str]:
    """What Spark's launcher puts on the driver's class path besides the
    session's jars: Spark's configuration folder (SPARK_CONF_DIR, else
    SPARK_HOME's conf/, which a pip-installed pyspark does not have), the
    distribution's extra class path, and Hadoop's and YARN's configuration
    folders."""
    import pyspark

    spark_home = os.environ.get("SPARK_HOME") or str(Path(pyspark.__file__).parent)
    conf_dir = os.environ.get("SPARK_CONF_DIR") or os.path.join(spark_home, "conf")
    names = ("SPARK_DIST_CLASSPATH", "HADOOP_CONF_DIR", "YARN_CONF_DIR")
    return [conf_dir, *(os.environ.get(name, "") for name in names)]


def _non_empty_folders(class_path: str) -> list[str]:
    """The class path's folders that hold files: a JVM asked to dump an
    archive with one on its class path exits (JDK 17)."""
    found = []
    for entry in filter(None, class_path.split(os.pathsep)):
        folder = Path(entry)
        if folder.is_dir() and any(folder.iterdir()):
            found.append(entry)
    return found


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _touch(archive: Path) -> None:
    """Marks the archive used (the clean-up keeps it)."""
    try:
        os.utime(archive)
    except OSError:
        pass


def _remove_unused(folder: Path, keep: Path) -> None:
    """Archives past the KEEP most recently used, or unused for UNUSED_DAYS,
    and leftovers of a dump that was killed. A JVM that maps one keeps its
    pages: removing the name does not touch them."""
    cutoff = time.time() - UNUSED_DAYS * 86400
    archives = sorted(folder.glob("spark-*.jsa"), key=_mtime, reverse=True)
    for old in archives[KEEP:] + [a for a in archives[:KEEP] if _mtime(a) < cutoff]:
        if old != keep:
            old.unlink(missing_ok=True)
    for partial in folder.glob("spark-*.jsa.*.tmp"):
        if _mtime(partial) < time.time() - 3600:
            partial.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
