"""What the formats written by SQL MERGE (Iceberg's, Delta's: merge_table.py)
share about their commits: the text a write records what it consumed and
was built from in (an Iceberg snapshot's write-audit-publish id, a Delta
commit's user metadata), and when a compaction is due and what cleaning
keeps, counted on their snapshots or versions. Times are Spark's (naive, in
the session's zone)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from dbt.adapters.lakehouse.relation_configs.compaction import CompactionConfig


class Compacted(Protocol):
    """A table config with a compaction trigger (merge_table.MergeTableConfig)."""

    @property
    def table_type(self) -> str: ...

    @property
    def compaction(self) -> CompactionConfig: ...


# What starts the write-audit-publish id of a write that records positions.
WAP_PREFIX = "lakehouse:"
# Cleaning when the model sets none: as Hudi's default, the latest 10 commits.
DEFAULT_RETAIN = 10


@dataclass(frozen=True)
class Snapshot:
    committed_at: datetime
    operation: str


def parse_snapshots(rows: Sequence[Sequence[Any]]) -> list[Snapshot]:
    """Rows of (committed_at, operation), oldest first."""
    found = [Snapshot(naive_time(row[0]), str(row[1])) for row in rows]
    return sorted(found, key=lambda s: s.committed_at)


def compaction_due(
    lake: Compacted,
    snapshots: list[Snapshot],
    now: datetime,
    rewrites: frozenset[str],
) -> bool:
    """Whether the model's compaction trigger is met: snapshots (Delta:
    versions) since the last rewrite (an operation in `rewrites`) or since the
    table began, and the time since it."""
    compaction = lake.compaction
    if lake.table_type != "mor" or not snapshots:
        return False
    last = max((i for i, s in enumerate(snapshots) if s.operation in rewrites), default=-1)
    commits = len(snapshots) - last - 1
    since = snapshots[last].committed_at if last >= 0 else snapshots[0].committed_at
    by_count = commits >= compaction.delta_commits
    by_time = commits > 0 and (now - since).total_seconds() >= compaction.delta_seconds
    return {
        "num_commits": by_count,
        "time_elapsed": by_time,
        "num_and_time": by_count and by_time,
        "num_or_time": by_count or by_time,
    }[compaction.trigger]


def naive_time(value: Any) -> datetime:
    """A time Spark returned, without its zone (Spark's times are the session's)."""
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    return datetime.fromisoformat(str(value)).replace(tzinfo=None)


def wap_id(run: str, recorded: Mapping[str, str]) -> str:
    """The write-audit-publish id of a write that records `recorded` (the
    positions it consumed, what it was built from): unique per run, as
    Iceberg publishes a staged snapshot by it."""
    text = json.dumps(
        {"run": run, "recorded": dict(recorded)}, sort_keys=True, separators=(",", ":")
    )
    # Spark's SET takes it between backquotes: a backquote is spelled as JSON's escape.
    return WAP_PREFIX + text.replace("`", "\\u0060")


def parse_wap_id(value: str | None) -> dict[str, str] | None:
    if not value or not value.startswith(WAP_PREFIX):
        return None
    try:
        recorded = json.loads(value[len(WAP_PREFIX) :]).get("recorded")
    except (ValueError, AttributeError):
        return None
    return {str(k): str(v) for k, v in recorded.items()} if isinstance(recorded, dict) else None
