"""YARN's defaults left out of a local-mode session's Hadoop configuration.

Once Hadoop's YARN classes are loaded (Spark loads them), every Hadoop
`Configuration` in the JVM reads yarn-default.xml: 463 of the 968 settings of
the embedded session's configuration, none of them read when the whole job
runs in this JVM. The configuration's size is paid over and over on small
batches: Hudi serializes the whole configuration (about 100 KB) into each task
of a write or a read, copies it, and parses the XML defaults again for each
file it reads (a `new Configuration()` per file). A JFR profile of a small
warehouse build put a quarter of the JVM's samples in `Configuration`.

The folder hadoop_local/ beside this module holds an empty yarn-default.xml; first on the
driver's class path, it is the one Hadoop finds. The configuration halves (54
KB serialized), and a build of the warehouse's small batch takes 10% less time
and CPU (adapter/README.md, "What the embedded session sets for speed"). Only
for a `local` master: a cluster's executors are other JVMs, and a cluster
manager may be YARN.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).with_name("hadoop_local")


def class_path(master: str) -> list[str]:
    """The folder to put first on the driver's class path; none for a cluster
    master, or if the folder is missing from the installed package."""
    if not master.startswith("local") or not (FOLDER / "yarn-default.xml").is_file():
        return []
    return [str(FOLDER)]
