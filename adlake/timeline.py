"""The instants a Hudi table's timeline holds, with when each was requested and
completed, read from the timeline's files (Hudi 1.x layout).

A write goes through `<instant>.<action>.requested`, `.inflight`, and lands as
`<instant>_<completion time>.<action>`; a compaction completes as a `commit`.
The files' modification times say how long each step took on the wall clock,
which is what a profile of a write needs: the time of the table's own commit,
of its metadata table's, of an inline compaction or clean.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

PENDING = re.compile(r"^(\d+)\.(\w+)\.(requested|inflight)$")
COMPLETED = re.compile(r"^(\d+)_\d+\.(\w+)$")


@dataclass
class Instant:
    instant: str
    action: str
    requested_at: float  # epoch seconds
    completed_at: float | None

    @property
    def seconds(self) -> float | None:
        return None if self.completed_at is None else self.completed_at - self.requested_at


def read_instants(table_dir: Path) -> list[Instant]:
    """The active timeline's instants (archived ones are gone from here), oldest first."""
    timeline = Path(table_dir) / ".hoodie" / "timeline"
    if not timeline.is_dir():
        return []
    requested: dict[str, tuple] = {}
    completed: dict[str, tuple] = {}
    for path in timeline.iterdir():
        if pending := PENDING.match(path.name):
            instant, action, state = pending.groups()
            if state == "requested" or instant not in requested:
                requested[instant] = (action, path.stat().st_mtime)
        elif done := COMPLETED.match(path.name):
            completed[done.group(1)] = (done.group(2), path.stat().st_mtime)
    instants = []
    for instant in sorted(set(requested) | set(completed)):
        action, started = requested.get(instant, (None, None))
        finished_action, finished = completed.get(instant, (None, None))
        # A compaction is requested as `compaction` and completes as `commit`:
        # name it by what was asked for.
        action = action or finished_action
        instants.append(
            Instant(instant, action, started if started is not None else finished, finished)
        )
    return instants


def instants_between(table_dir: Path, start: float, end: float) -> list[Instant]:
    """Instants requested in [start, end] on the table and on its metadata table
    (whose actions are prefixed `metadata `)."""
    found = [i for i in read_instants(table_dir) if start <= i.requested_at <= end]
    for instant in read_instants(Path(table_dir) / ".hoodie" / "metadata"):
        if start <= instant.requested_at <= end:
            instant.action = "metadata " + instant.action
            found.append(instant)
    return found
