"""The warm servers one user runs on this machine, and the cap on them.

Each lake's warm server (warm/server.py) is a JVM with up to its
spark.driver.memory of heap (4g unless the profile says otherwise), kept for
warm_idle_timeout after its last dbt command. Without a cap, a user who
builds several projects (or a test suite, or a notebook that runs dbt for
many) keeps one per lake until each times out: 14 of them held 16 GB of a
24 GB machine. So a dbt process about to start a server counts those that
run, in a registry folder of one file per server:

- at most `cap()` run at once: LAKEHOUSE_WARM_SERVERS (3 unless set), and no
  more than three quarters of the machine's memory in their largest heaps (an
  idle server holds far less: its heap grows as its work needs);
- when the cap is reached, the least recently used idle server is stopped
  first (idle: no dbt process holds its lake's client lock; used: when a dbt
  process last attached to it or left it, the lock file's time);
- when every one is in use, this run's Spark runs in-process instead, and
  the log says why.

A server removes its file when it stops; a file whose server is gone (killed)
is removed by the next count. The folder is LAKEHOUSE_WARM_REGISTRY, else
`warm-servers` in the user's dbt-lakehouse cache folder.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dbt.adapters.lakehouse import maven, processes
from dbt.adapters.lakehouse.warm import state as warm_state

REGISTRY_ENV = "LAKEHOUSE_WARM_REGISTRY"
CAP_ENV = "LAKEHOUSE_WARM_SERVERS"
DEFAULT_CAP = 3
DEFAULT_HEAP = "4g"  # embedded_session's spark.driver.memory
LOCK_FILE = ".lock"
# The server takes its lake's client lock for a moment each second to see
# whether a dbt process holds it: a lock found taken is looked at again.
IDLE_LOOKS = 3


def registry() -> Path:
    if os.environ.get(REGISTRY_ENV):
        return Path(os.environ[REGISTRY_ENV]).expanduser()
    return maven.user_cache_root() / "warm-servers"


def heap_mb(spark_conf: dict[str, str]) -> int:
    """spark.driver.memory in MiB (Spark's notation: 512m, 4g, 1t; a bare number is MiB)."""
    text = str(spark_conf.get("spark.driver.memory") or DEFAULT_HEAP).strip().lower()
    found = re.fullmatch(r"(\d+)([kmgt]?)b?", text)
    if not found:
        return 4096
    scale = {"k": 1 / 1024, "": 1, "m": 1, "g": 1024, "t": 1024 * 1024}[found.group(2)]
    return max(1, int(int(found.group(1)) * scale))


def machine_memory_mb() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024))
    except (ValueError, OSError, AttributeError):
        return None


def cap(heap: int) -> int:
    """How many servers of `heap` MiB may run at once."""
    setting = os.environ.get(CAP_ENV, "").strip()
    wanted = int(setting) if setting.isdigit() and int(setting) > 0 else DEFAULT_CAP
    memory = machine_memory_mb()
    if memory is None:
        return wanted
    return max(1, min(wanted, memory * 3 // 4 // heap))


@dataclass(frozen=True)
class Entry:
    """One server's file: its process and its lake."""

    pid: int
    lake: str
    heap_mb: int

    @property
    def path(self) -> Path:
        return registry() / f"{self.pid}.json"

    def last_used(self) -> float:
        try:
            return warm_state.client_lock_path(Path(self.lake)).stat().st_mtime
        except OSError:
            return 0.0


@contextlib.contextmanager
def locked() -> Iterator[None]:
    """The registry for this process alone: counting, stopping and starting
    are one step, or two processes would each start the last server allowed."""
    folder = registry()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / LOCK_FILE).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def add(pid: int, lake: Path, heap: int) -> None:
    entry = Entry(pid, str(lake), heap)
    registry().mkdir(parents=True, exist_ok=True)
    warm_state.write_private(entry.path, json.dumps(entry.__dict__) + "\n")


def remove(pid: int) -> None:
    (registry() / f"{pid}.json").unlink(missing_ok=True)


def running() -> list[Entry]:
    """The servers whose process lives (the files of others are removed)."""
    found = []
    folder = registry()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text())
            entry = Entry(int(data["pid"]), str(data["lake"]), int(data["heap_mb"]))
        except (OSError, ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)
            continue
        if processes.alive(entry.pid):
            found.append(entry)
        else:
            path.unlink(missing_ok=True)
    return found


def _stop_if_idle(entry: Entry) -> bool:
    """Stop the server of `entry` if no dbt process uses its lake; whether it did."""
    lake = Path(entry.lake)
    state = warm_state.read_state(lake)
    if state is None or state.pid != entry.pid:
        return False  # still starting (its state comes once it serves)
    try:
        lock = warm_state.client_lock_path(lake).open("a+")
    except OSError:  # its lake folder removed: the server is stopping by itself
        return False
    with lock:
        for _ in range(IDLE_LOOKS):
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                time.sleep(0.15)
        else:
            return False
        # Held while it stops: a dbt process coming for this lake waits, then
        # finds no server and starts one.
        warm_state.terminate(state)
    remove(entry.pid)
    return True


def make_room(
    lake: Path, heap: int, release: Callable[[Path], None] = lambda lake: None
) -> tuple[bool, list[str]]:
    """Under locked(): whether a server for `lake` may start, after stopping
    the least recently used idle ones over the cap; and what was stopped.
    `release` lets go of this process's own hold on a lake, if it can."""
    stopped: list[str] = []
    allowed = cap(heap)
    others = [e for e in running() if Path(e.lake) != lake]
    for entry in sorted(others, key=Entry.last_used):
        if len(others) < allowed:
            break
        release(Path(entry.lake))
        if _stop_if_idle(entry):
            others.remove(entry)
            stopped.append(f"pid {entry.pid}, lake {entry.lake}")
    return len(others) < allowed, stopped


def stopped_note(server: str, heap: int) -> str:
    return (
        f"Stopped the least recently used idle warm Spark server ({server}): at most "
        f"{cap(heap)} run at once ({CAP_ENV}, within three quarters of the machine's memory)."
    )


def no_room(heap: int) -> str:
    return (
        f"{cap(heap)} warm Spark servers run on this machine (the cap: {CAP_ENV}, within "
        f"three quarters of the machine's memory in heaps of {heap} MiB), each in use by a "
        "dbt process"
    )
