"""Whether a process of this user's still runs: the warm servers, a lake's
lock holder, a build that left a staging folder. No imports of the adapter's
own: every folder may use it."""

from __future__ import annotations

import os
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether `pid` runs. A zombie (dead, not yet reaped by its parent) does
    not: os.kill(pid, 0) alone would say it does."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): trust kill
    # The state is the field after the command, which is in parentheses.
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def wait_gone(pids: list[int], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True
