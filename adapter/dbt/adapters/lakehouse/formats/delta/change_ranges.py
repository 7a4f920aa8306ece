"""Change reads of a Delta upstream: positions are versions.

A model reads what an upstream Delta table committed after the version it
last consumed (exclusive) through the upstream's latest version at compile
time (inclusive), from Delta's Change Data Feed (`table_changes`: inserts,
deletes, updates as before and after images), which every Delta table the
adapter writes records. A compaction (OPTIMIZE, REORG ... PURGE) changes no
data, and the feed returns nothing of it.

A range is a gap, read whole instead (or failing, with on_gap='fail'), when
the table was rebuilt or restored after the consumed version, when its log no
longer reaches back to it, or when a VACUUM since may have deleted the files
of the range (delta_history.History.gap).

Where a Delta model records what it consumed: formats/delta/history.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.delta.history import History
from dbt.adapters.lakehouse.formats.table_format import ChangeHistory, Sql


def plan_read(
    upstream: str,
    mode: str,
    consumed: str | None,
    history: History,
    on_gap: str,
    model: str,
    columns: Sequence[tuple[str, str]],
    key: Sequence[str],
) -> ChangeRead:
    """Decide the range of a Delta upstream (change_range.plan_versioned_read)."""
    return change_range.plan_versioned_read(
        upstream,
        mode,
        consumed,
        history.latest,
        history.gap,
        on_gap,
        model,
        columns,
        key,
        "delta",
        "version",
        "number",
    )


class DeltaChanges(ChangeHistory):
    def __init__(self, history: History) -> None:
        self._history = history

    def later(self, *positions: str | None) -> str | None:
        return self._history.later(*positions)

    def plan(self, request: ReadRequest, consumed: str | None) -> ChangeRead:
        """The range, with the upstream's location: a read is by the table's
        path (a version, or the change feed between two)."""
        read = plan_read(
            request.upstream,
            request.mode,
            consumed,
            self._history,
            request.on_gap,
            request.model,
            request.columns(),
            request.key(),
        )
        if not read.is_empty:
            read = dataclasses.replace(read, location=request.location)
        return read


def change_source(read: ChangeRead, sql: Sql) -> str:
    """The relation that reads a planned range of a Delta upstream: its
    change feed, or the version it ends at when read whole, each by the
    table's path."""
    if read.is_empty:
        return change_range.no_rows(read, sql)
    if read.begin is None:
        if read.mode == "cdc":
            return sql(
                "delta_snapshot_as_cdc_inserts",
                location=_location(read),
                version=read.end,
                columns=list(read.columns),
            )
        return as_of(read, sql)
    return sql(
        "delta_cdc_rows" if read.mode == "cdc" else "delta_latest_state",
        location=_location(read),
        first=int(read.begin) + 1,
        last=read.end,
        columns=list(read.columns),
        key=list(read.key),
    )


def as_of(read: ChangeRead, sql: Sql) -> str:
    """The version a full read ends at."""
    if read.end is None:
        return read.upstream
    return sql("delta_as_of", location=_location(read), version=read.end)


def _location(read: ChangeRead) -> str:
    if not read.location:
        raise ValueError(f"a read of the Delta table {read.upstream} needs its location")
    return read.location
