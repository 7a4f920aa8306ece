"""A dbt child process (dbt_batches.py) in a process group of its own, killed
with SIGKILL part-way (Python and its Spark JVM at once, as kill -9 of a job
does), and what it printed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.dbt_harness import DbtProject

HELPER = Path(__file__).with_name("dbt_batches.py")


class ChildRun:
    """dbt_batches.py in a process group of its own, with its output in a file."""

    def __init__(
        self,
        project: DbtProject,
        first: int,
        last: int,
        *options: str,
        env: dict[str, str] | None = None,
        tag: str = "",
    ) -> None:
        self.log = project.root / f"run_{first}_{last}{tag}.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, str(HELPER), str(project.root), str(first), str(last), *options],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, **(env or {})},
            )

    def kill_when(self, condition: Callable[[], bool], timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if self.process.poll() is not None:
                pytest.fail(f"the run ended before the kill point:\n{self.output()}")
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"the kill point was not reached in {timeout} s:\n{self.output()}")
            time.sleep(0.05)
        self.kill()

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:  # killed already
            pass
        self.process.wait()

    def finish(self, timeout: float = 600) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def batches_done(self) -> list[int]:
        return [
            int(line.split()[1])
            for line in self.output().splitlines()
            if line.startswith("batch ") and line.endswith(" done")
        ]


def query_rows(run: ChildRun) -> list[tuple]:
    """The rows the child printed for its --query arguments, in order."""
    rows = [line.split()[1:] for line in run.output().splitlines() if line.startswith("ROW ")]
    return [tuple(None if v == "None" else int(v) for v in row) for row in rows]
