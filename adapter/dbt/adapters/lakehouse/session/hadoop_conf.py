"""YARN's defaults left out of a local-mode session's Hadoop configuration.

Once Hadoop's YARN classes are loaded (Spark loads them), every Hadoop
`Configuration` in the JVM reads yarn-default.xml: 463 of the 968 settings of
the embedded session's configuration, none of them read when the whole job
runs in this JVM. The configuration's size is paid over and over on small
batches: Hudi serializes the whole configuration (about 100 KB) into each task
of a write or a read, copies it, and parses the XML defaults again for each
file it reads (a `new Configuration()` per file). A JFR profile of a small
warehouse build put a quarter of the JVM's samples in `Configuration`.

The folder hadoop_local/ beside this module holds an empty yarn-default.xml;
packed into a jar in the jar cache and put first on the driver's class path, it
is the one Hadoop finds. The configuration halves (54 KB serialized), and a
build of the warehouse's small batch takes 10% less time and CPU
(adapter/README.md, "What the embedded session sets for speed"). A jar, not
the folder itself: the JVM's class-data archive (session/class_data.py) takes only
jars on the class path. Only for a `local` master: a cluster's executors are
other JVMs, and a cluster manager may be YARN.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from dbt.adapters.lakehouse.session import jdk

FOLDER = Path(__file__).with_name("hadoop_local")
RESOURCE = "yarn-default.xml"


def jar(cache_dir: Path) -> Path | None:
    """The jar holding the empty yarn-default.xml, in `cache_dir` (written on
    first use); None if the file is missing from the installed package."""
    source = FOLDER / RESOURCE
    if not source.is_file():
        return None
    content = source.read_bytes()
    # Named for its content: a changed file gets a new jar.
    target = cache_dir / f"lakehouse-hadoop-local-{hashlib.sha256(content).hexdigest()[:12]}.jar"
    if target.is_file():
        return target
    jdk.write_jar(target, [(RESOURCE, content)])
    return target


def class_path(master: str, cache_dir: Path) -> list[str]:
    """The jar to put first on the driver's class path; none for a cluster
    master, or if the file is missing from the installed package."""
    if not master.startswith("local"):
        return []
    built = jar(cache_dir)
    return [str(built)] if built is not None else []
