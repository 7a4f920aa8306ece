"""The uninterrupted Hudi build of the warehouse that the kill tests compare
with, built once per test run and shared by the test processes.

test_killed_warehouse.py compares its killed chain with it after the last
batch, test_table_formats.py its Iceberg and Delta builds after batch 2: the
one child (warehouse_batches.py, with --digest-after) prints both. The first
test process to ask starts it, under a lock in the run's shared temporary
folder; the others read its output file, which names each block when it is
complete. The process that started it stops it: at the end of its session
it waits for the build to end (a test in another process may still be
waiting on it), then kills what is left by its process group.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adlake.generator import generate
from tests.dbt_harness import hudi_jar
from tests.warehouse.warehouse_batches import CLOSING, Child, Work, digest_of, prepare_work

SCHEMA = "wh"  # the same in every build compared with it: digests name schema.table
BATCHES = 5
DATA = dict(seed=12, events=1500, batches=BATCHES, accounts=30, late_accounts=2)
# test_killed_warehouse's settings: DWD compacts after every delta commit and
# keeps one commit's file versions, so that a few batches compact and clean.
# Table services change no rows: the digests of a build with other settings
# must equal these.
VARS = {"dwd_compaction_delta_commits": 1, "dwd_cleaning_retain": 1}
OPTIONS = ["--vars", json.dumps(VARS), "--no-tests"]
# Where test_table_formats' chains stop.
DIGEST_AFTER = (2,)


class Reference:
    """The build's folders and output, from any test process."""

    def __init__(self, root: Path, child: Child | None = None) -> None:
        self.root = root
        self.generated = root / "generated"
        self.child = child  # in the process that started it
        self.work = Work(root / "work")
        self.log = self.work.root / "child_reference.log"

    def truth(self, batch: int) -> dict:
        """The generator's totals after `batch`."""
        return json.loads((self.generated / "truth.json").read_text())["batches"][batch - 1]

    def output(self, timeout: float = 1800) -> str:
        """The whole output, once the build has ended well."""
        return self._wait(lambda text: text if CLOSING in text else None, timeout)

    def after(self, batch: int, timeout: float = 1800) -> str:
        """The digest block printed after `batch`, once printed."""
        return self._wait(lambda text: digest_of(text, batch), timeout)

    def _wait(self, found, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.log.read_text(errors="replace") if self.log.exists() else ""
            if (result := found(text)) is not None:
                return result
            if not self._running():
                tail = "\n".join(text.splitlines()[-60:])
                raise AssertionError(f"the Hudi reference build ended early:\n{tail}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the Hudi reference build took over {timeout} s")
            time.sleep(1)

    def _running(self) -> bool:
        if self.child is not None:
            return self.child.process.poll() is None
        pid = int((self.root / "pid").read_text())
        try:
            # A child another process started stays a zombie until it reaps it.
            return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
        except (FileNotFoundError, IndexError):
            return False


@contextmanager
def shared(folder: Path) -> Iterator[Reference]:
    """The reference in `folder` (shared by the run's test processes),
    started here unless another process started it."""
    folder.mkdir(parents=True, exist_ok=True)
    root = folder / "hudi_reference"
    with (folder / "hudi_reference.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        child = None
        if not (root / "pid").exists():
            generate(root / "generated", **DATA)
            work = prepare_work(root / "work", SCHEMA, root / "generated", hudi_jar())
            after = [f"--digest-after={batch}" for batch in DIGEST_AFTER]
            child = Child(work, 1, BATCHES, *OPTIONS, *after, "--digest", tag="reference")
            (root / "pid").write_text(str(child.process.pid))
        fcntl.flock(lock, fcntl.LOCK_UN)
    try:
        yield Reference(root, child)
    finally:
        if child is not None:
            try:
                child.finish()
            finally:
                child.kill()


def shared_folder(basetemp: Path) -> Path:
    """The run's folder every test process sees: pytest-xdist gives each
    worker a folder of its own inside it."""
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
