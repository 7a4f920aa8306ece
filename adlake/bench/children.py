"""A benchmark's child process: a fresh JVM and Python for one phase, whose
figures come back as JSON on its last `figures: ` line."""

from __future__ import annotations

import json
import subprocess
import sys

PREFIX = "figures: "


def report(figures: dict) -> None:
    """In the child: hand the figures to the parent."""
    print(PREFIX + json.dumps(figures), flush=True)


def run(module: str, args: list[str], failure: str) -> dict:
    """Runs `python -m module args`; its figures, or exits with `failure`."""
    child = subprocess.run([sys.executable, "-m", module, *args], stdout=subprocess.PIPE, text=True)
    found = [line for line in child.stdout.splitlines() if line.startswith(PREFIX)]
    if child.returncode != 0 or not found:
        sys.exit(f"{failure} (exit {child.returncode})")
    return json.loads(found[-1][len(PREFIX) :])
