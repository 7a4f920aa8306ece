"""Where the embedded session's Spark keeps its scratch files
(`spark.local.dir`): a folder per process under the lake, not /tmp.

Spark copies the jars it is given (the Hudi bundle, and on s3a:// the S3
connector: 100 to 350 MB in all) into a `spark-<uuid>` folder of its local
dir, with its shuffle and spill files, and deletes the folder when the JVM
shuts down. A process killed with SIGKILL (kill -9, the OOM killer) never
shuts down, and its folder stayed in /tmp for good: one per killed run. Under
the lake, each process gets `.spark-local/<host>-<pid>`, and a session that
starts removes the folders of this host's processes that are gone, so what a
killed run left goes with the next run on the lake. (The host in the name:
a lake folder on a shared disk may be used from several machines, whose
process ids say nothing here.)

The Hive client of the session's catalog makes a `<session id>_resources`
folder in java.io.tmpdir when it starts and never removes it, however the JVM
ends: one more empty folder in /tmp for every session. It goes in the
process's folder too, and so does the rest of the JVM's java.io.tmpdir: what
the JVM makes there as it starts and removes as it shuts down (spark-submit's
`spark-<uuid>` folder, lz4's native library, 600 KB) stayed in /tmp after
each killed run.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

from dbt.adapters.lakehouse import processes

FOLDER = ".spark-local"
# Hive's own name for it (it fills in the id), in the folder given: a process
# may open several Hive sessions (the Thrift server, one per client session,
# removes each one's folder when it closes).
HIVE_RESOURCES = "${hive.session.id}_resources"
JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def session_local_dir(lake: Path) -> Path:
    """This process's scratch folder under `lake`, made after removing those
    of this host's dead processes."""
    root = lake / FOLDER
    root.mkdir(parents=True, exist_ok=True)
    host = socket.gethostname()
    for folder in root.iterdir():
        owner, _, pid = folder.name.rpartition("-")
        if (
            owner == host
            and pid.isdigit()
            and int(pid) != os.getpid()
            and not processes.alive(int(pid))
        ):
            shutil.rmtree(folder, ignore_errors=True)
    own = root / f"{host}-{os.getpid()}"
    own.mkdir(exist_ok=True)
    return own


def session_conf(lake: Path, java_options: str) -> dict[str, str]:
    """The settings that put the session's scratch folders in its own folder
    under `lake` (`java_options`: the driver's JVM flags so far)."""
    return scratch_conf(session_local_dir(lake), java_options)


def scratch_conf(folder: Path, java_options: str) -> dict[str, str]:
    """The settings that put a Spark application's scratch files, the folders
    its Hive client makes (one per Hive session, which Hive names) and its
    driver JVM's temporary files in `folder` (made here: the JVM needs its
    temporary folder to exist); `java_options` are the driver's JVM flags so
    far, which the setting returned keeps."""
    folder.mkdir(parents=True, exist_ok=True)
    return {
        "spark.local.dir": str(folder),
        "spark.hadoop.hive.downloaded.resources.dir": f"{folder}/{HIVE_RESOURCES}",
        JAVA_OPTIONS: f"{java_options} -Djava.io.tmpdir={folder}".strip(),
    }
