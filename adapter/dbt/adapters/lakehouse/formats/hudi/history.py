"""What a Hudi table's timeline says: its completed commits, its latest
one, and what the adapter's writes recorded in their extra metadata (a
change read's consumed positions, a build's inputs), each asked through the
statement macros (`ask`: formats/table_format.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from dbt.adapters.lakehouse.formats.table_format import Ask

# A table's position is in its latest write; only table services (compaction,
# clustering) come between, so a short look back suffices.
POSITION_SCAN = 30


@dataclass(frozen=True)
class LatestCommit:
    instant: str  # the latest instant requested
    completed: str  # the latest completion time among the recent commits


def is_not_hudi(exc: Exception) -> bool:
    """Whether Spark's error says the table asked about is not Hudi's."""
    return "is not a Hudi table" in str(exc)


def completed_commits(ask: Ask, table: str, limit: int) -> list[Any]:
    """Completed writes and table services, newest instant first (rows of
    `CALL show_commits`: commit_time, state_transition_time, ...)."""
    return list(ask("show_commits", table=table, limit=limit))


def latest_commit(ask: Ask, table: str) -> LatestCommit | None:
    """None when nothing was ever committed; Spark's error when the table is
    not Hudi (see latest_commit_if_hudi)."""
    # A few, not one: an older instant (a compaction, another writer's
    # commit) may have completed after the newest one.
    commits = completed_commits(ask, table, 10)
    if not commits:
        return None
    # Listed newest instant first.
    return LatestCommit(
        instant=str(commits[0]["commit_time"]),
        completed=max(str(c["state_transition_time"]) for c in commits),
    )


def latest_commit_if_hudi(ask: Ask, table: str) -> LatestCommit | None:
    """latest_commit, and None for a table that is not Hudi."""
    try:
        return latest_commit(ask, table)
    except Exception as exc:  # Spark's own exception on the embedded session
        if is_not_hudi(exc):
            return None
        raise


def recorded(ask: Ask, table: str, key: str) -> str | None:
    """The value of `key` in the extra metadata of the latest commit that has it."""
    for commit in completed_commits(ask, table, POSITION_SCAN):
        rows = ask(
            "show_commit_extra_metadata", table=table, instant=commit["commit_time"], key=key
        )
        for row in rows:
            return str(row["metadata_value"])
    return None


def cleaned_before(ask: Ask, table: str) -> str | None:
    """The instant before which the cleaner may have removed file slices
    (from the table's recent cleans); None if nothing was cleaned."""
    cleans = ask("show_cleans", table=table, limit=10)
    # A clean that names no earliest instant to retain (file-version
    # policy) may have removed any slice written before it ran.
    floors = [
        str(c["earliest_commit_to_retain"] or c["clean_time"])
        for c in cleans
        if c["total_files_deleted"]
    ]
    return max(floors, default=None)


def last_completed_utc(ask: Ask, table: str) -> str | None:
    """When the table's latest completed instant completed, in UTC
    ('YYYY-MM-DD HH:MM:SS.ffffff'); None if nothing was ever committed to
    it; Spark's error when the table is not Hudi's."""
    latest = latest_commit(ask, table)
    if latest is None:
        return None
    # Instant times are wall-clock times in the table's timeline zone: Hudi's
    # default, LOCAL, is the zone of the JVM that wrote them.
    properties = {str(row[0]): str(row[1]) for row in ask("show_table_properties", table=table)}
    if properties.get("hoodie.table.timeline.timezone", "LOCAL").upper() == "UTC":
        zone = "UTC"
    else:
        zone = str(ask("jvm_time_zone")[0][0])
    completed = datetime.strptime(latest.completed[:17], "%Y%m%d%H%M%S%f")
    moment = completed.replace(tzinfo=ZoneInfo(zone))
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
