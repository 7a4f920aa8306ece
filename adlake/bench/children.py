"""A benchmark's child process: a fresh JVM and Python for one phase, whose
figures come back as JSON on its last `figures: ` line."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

PREFIX = "figures: "


def add_phase_arguments(parser: argparse.ArgumentParser, phases: Iterable[str]) -> None:
    """The hidden arguments a benchmark passes to the child that runs one of
    its phases (phase_arguments)."""
    parser.add_argument("--phase", choices=sorted(phases), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--params", help=argparse.SUPPRESS)


def phase_arguments(phase: str, work: Path, params: dict) -> list[str]:
    return ["--phase", phase, "--work", str(work), "--params", json.dumps(params)]


def report(figures: dict) -> None:
    """In the child: hand the figures to the parent."""
    print(PREFIX + json.dumps(figures), flush=True)


def run(
    module: str,
    args: list[str],
    failure: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> dict:
    """Runs `python -m module args`, passing on its other output as it comes
    (a long phase's progress); its figures, or exits with `failure`."""
    child = subprocess.Popen(
        [sys.executable, "-m", module, *args], stdout=subprocess.PIPE, text=True, env=env, cwd=cwd
    )
    figures = None
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith(PREFIX):
            figures = json.loads(line[len(PREFIX) :])
        else:
            print(line, end="", flush=True)
    if child.wait() != 0 or figures is None:
        sys.exit(f"{failure} (exit {child.returncode})")
    return figures
