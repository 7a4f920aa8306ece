"""Where the suite's CPU goes, test by test: with ADLAKE_TEST_CPU_LOG=<file>,
each test process appends a JSON line per test to <file> with the CPU
seconds of the test process and of every process it started during the test
(JVMs, servers, child runs, dbt processes), and the wall seconds.

The suite keeps both cores busy, so its time is its CPU; a test's wall time
says little (it shares the cores with two other workers and their JVMs).

    ADLAKE_TEST_CPU_LOG=/tmp/cpu.jsonl .venv/bin/pytest tests -n 3 --dist loadfile ...
    .venv/bin/python -m tests.cpu_by_test /tmp/cpu.jsonl      # by file, the largest first

A thread samples /proc every second, so what a process uses after its last
sample is missed (all of it, for one that lived less than a second); a process started by another test
process (a shared build) counts for the test running there. Processes that
leave the tree (a daemonized server, an orphaned JVM) are still followed.
Linux only; conftest.py loads it when the variable is set.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

ENV_VAR = "ADLAKE_TEST_CPU_LOG"
TICK = os.sysconf("SC_CLK_TCK")


class Tracker:
    """The CPU ticks of this process's descendants, by (pid, start time): a
    pid is reused, its start time is not."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ticks: dict[tuple[int, int], int] = {}
        self.names: dict[tuple[int, int], str] = {}

    def sample(self) -> None:
        children: dict[int, list[int]] = collections.defaultdict(list)
        stats: dict[int, tuple[int, int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                fields = _stat(entry)
            except OSError:
                continue
            pid = int(entry)
            children[int(fields[1])].append(pid)
            stats[pid] = (int(fields[19]), int(fields[11]) + int(fields[12]))
        tree, stack = set(), [os.getpid()]
        while stack:
            for child in children.get(stack.pop(), []):
                tree.add(child)
                stack.append(child)
        with self.lock:
            followed = {pid for pid, _ in self.ticks}
            for pid in tree | followed:
                if pid not in stats:
                    continue
                key = (pid, stats[pid][0])
                if pid in tree or key in self.ticks:
                    self.ticks[key] = stats[pid][1]
                    if key not in self.names:
                        self.names[key] = _command(pid)

    def snapshot(self) -> tuple[int, dict[tuple[int, int], int]]:
        """This process's own ticks and its descendants'."""
        self.sample()
        fields = _stat(os.getpid())
        with self.lock:
            return int(fields[11]) + int(fields[12]), dict(self.ticks)


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (which may hold
    spaces): [1] is the parent, [11] and [12] user and system ticks, [19]
    the start time."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:100]
    except OSError:
        return "?"


class Plugin:
    def __init__(self, log: Path) -> None:
        self.log = log
        self.tracker = Tracker()
        threading.Thread(target=self._sample_every_second, daemon=True).start()

    def _sample_every_second(self) -> None:
        while True:
            try:
                self.tracker.sample()
            except OSError:
                pass
            time.sleep(1)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        own_before, before = self.tracker.snapshot()
        started = time.time()
        yield
        own_after, after = self.tracker.snapshot()
        used = {key: ticks - before.get(key, 0) for key, ticks in after.items()}
        used = {key: ticks for key, ticks in used.items() if ticks > 0}
        top = sorted(used.items(), key=lambda kv: -kv[1])[:5]
        record = {
            "test": item.nodeid,
            "cpu_s": round((own_after - own_before + sum(used.values())) / TICK, 1),
            "own_s": round((own_after - own_before) / TICK, 1),
            "wall_s": round(time.time() - started, 1),
            "processes": [[round(t / TICK, 1), self.tracker.names.get(k, "?")] for k, t in top],
        }
        with self.log.open("a") as out:
            out.write(json.dumps(record) + "\n")


def register(config) -> None:
    """Called by conftest.py: tracks the tests when the variable names a file."""
    log = os.environ.get(ENV_VAR)
    if log and Path("/proc/self/stat").exists():
        config.pluginmanager.register(Plugin(Path(log)), "cpu_by_test")


def summary(log: Path, top: int = 40) -> str:
    """CPU and wall seconds by test file, the largest first."""
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for line in log.read_text().splitlines():
        record = json.loads(line)
        figures = files[record["test"].split("::")[0]]
        figures[0] += record["cpu_s"]
        figures[1] += record["wall_s"]
        figures[2] += 1
    total = sum(cpu for cpu, _, _ in files.values())
    lines = [
        f"{total:.0f} CPU-s in {sum(n for *_, n in files.values())} tests",
        "  CPU-s  wall-s tests file",
    ]
    ranked = sorted(files.items(), key=lambda kv: -kv[1][0])[:top]
    lines += [f"{cpu:7.0f} {wall:7.0f} {n:5d} {name}" for name, (cpu, wall, n) in ranked]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(Path(sys.argv[1])))
