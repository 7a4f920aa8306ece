"""One process at a time on an embedded lake.

The embedded session keeps its catalog in a Derby database inside the lake
folder, which one JVM at a time can open. A second dbt run started on the same
lake (a scheduler firing while the last batch still runs) would otherwise fail
deep inside Spark with Derby's "Another instance of Derby may have already
booted the database", or a metastore stack trace. Instead it waits for the lake
for `lake_lock_timeout` seconds, then stops with a message naming the lake and
the process that holds it, before anything is read or written.

The lock is an OS file lock (flock) on `<lake>/.lakehouse.lock`, held while
the process's session is on the lake (the life of the process, unless it moves
its session to another lake: session/lake_switch.py): the kernel drops it when the
process ends, kill -9 included, so a dead run never leaves the lake locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from dbt_common.exceptions import DbtRuntimeError

LOCK_FILE = ".lakehouse.lock"
POLL_SECONDS = 0.5

# The lock this process holds (kept open, hence held, until released or the
# process ends).
_held: IO[str] | None = None


def release() -> None:
    """Give the lake back (the session has left it): another process may take it."""
    global _held
    handle, _held = _held, None
    if handle is not None:
        handle.close()  # closing the file drops its flock


def acquire(lake: Path, timeout: float, notify: Callable[[str], object] = print) -> None:
    """Take the lake for this process, waiting up to `timeout` seconds."""
    global _held
    if _held is not None:
        return
    handle = (lake / LOCK_FILE).open("a+")
    deadline = time.monotonic() + timeout
    told = False
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = _holder(handle)
                handle.close()
                raise DbtRuntimeError(
                    f"The lake {lake} is in use by another process ({holder}): its embedded Derby "
                    f"metastore admits one Spark application at a time. Waited {timeout:g} s "
                    "(lake_lock_timeout in the profile). Let that run finish, or give this run "
                    "another lake_dir; a shared metastore needs a Thrift server target."
                ) from None
            if not told:
                notify(
                    f"The lake {lake} is in use by another process ({_holder(handle)}); waiting for it."
                )
                told = True
            time.sleep(POLL_SECONDS)
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}, since {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC\n")
    handle.flush()
    _held = handle


def _holder(handle: IO[str]) -> str:
    handle.seek(0)
    return handle.read().strip() or "unknown process"
