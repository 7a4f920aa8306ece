"""A local file system for the embedded session that does not fork per file.

pyspark ships no Hadoop native library, so Hadoop's local file system sets the
permission of each file and folder it creates by running `chmod` in a child
process: about 8 ms each (a created file 11 ms against 2 ms without it), and a
100k-event micro-batch of the warehouse creates about 2,000 (data files and
their checksums, Hudi's timeline files and markers, scratch tables). The class
in java/NioLocalFileSystem.java is Hadoop's own local file system with that one
call made through java.nio instead.

It is compiled once per machine into the jar cache (hudi_bundle's) with the
JDK's `javac`, against the Hadoop client jar pyspark ships, and used for
`file:` paths when the whole job runs in this JVM (a `local` master). Without a
JDK the session keeps Hadoop's class, and the debug log says why.
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from dbt.adapters.lakehouse.session import jdk

CLASS_NAME = "lakehouse.hadoop.NioLocalFileSystem"
SOURCE = Path(__file__).parents[1] / "java" / "NioLocalFileSystem.java"


def _hadoop_client_jar() -> Path | None:
    import pyspark

    jars = sorted((Path(pyspark.__file__).parent / "jars").glob("hadoop-client-api-*.jar"))
    return jars[-1] if jars else None


def _javac() -> str | None:
    found = jdk.tool("javac")
    return str(found) if found else None


class CompileError(RuntimeError):
    """javac could not build a jar; the message is why (javac's own words)."""


def compile_jar(javac: str, source: Path, classpath: Path | str, target: Path) -> None:
    """Compiles one Java source against a jar (or a class path) into the jar
    `target`; CompileError when it cannot. Shared by this module's file
    system, the warm server's guard (warm_jars) and the Hudi-and-Delta session
    catalog (format_jars)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        classes = Path(work) / "classes"
        try:
            subprocess.run(
                [javac, "--release", "8", "-nowarn", "-cp", str(classpath), "-d", str(classes)]
                + [str(source)],
                check=True,
                capture_output=True,
                text=True,
                timeout=120,
            )
            jdk.write_jar(
                target,
                (
                    (path.relative_to(classes).as_posix(), path.read_bytes())
                    for path in sorted(classes.rglob("*.class"))
                ),
            )
        except (OSError, subprocess.SubprocessError) as error:
            detail = getattr(error, "stderr", "") or str(error)
            raise CompileError(f"compiling {source.name} failed: {detail.strip()[:500]}") from error


def jar(cache_dir: Path, notify: Callable[[str], None]) -> Path | None:
    """The compiled class's jar in `cache_dir` (built on first use), or None
    when it cannot be built here (`notify` is told why)."""
    hadoop = _hadoop_client_jar()
    javac = _javac()
    if hadoop is None or javac is None:
        notify(
            "local file system: Hadoop's (no "
            + ("Hadoop client jar" if hadoop is None else "javac")
            + "); it runs chmod in a child process for each file it creates"
        )
        return None
    # Named for what it was built from: a new source or Hadoop gets a new jar.
    digest = hashlib.sha256(SOURCE.read_bytes() + hadoop.name.encode()).hexdigest()[:12]
    target = cache_dir / f"lakehouse-local-fs-{digest}.jar"
    if target.is_file():
        return target
    try:
        compile_jar(javac, SOURCE, hadoop, target)
    except CompileError as error:
        notify(f"local file system: Hadoop's ({error})")
        return None
    return target


def session_conf(master: str, cache_dir: Path, notify: Callable[[str], None]) -> dict[str, str]:
    """The launch settings that put the class on the driver's class path and
    use it for file: paths; none for a cluster master (its executors are other
    JVMs) or when the jar cannot be built."""
    if not master.startswith("local"):
        return {}
    built = jar(cache_dir, notify)
    if built is None:
        return {}
    return {"spark.driver.extraClassPath": str(built), "spark.hadoop.fs.file.impl": CLASS_NAME}
