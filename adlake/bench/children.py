"""A benchmark's child process: a fresh JVM and Python for one phase, whose
figures come back as JSON on its last `figures: ` line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PREFIX = "figures: "


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
