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

from collections.abc import Sequence

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats.change_range import ChangeRead
from dbt.adapters.lakehouse.formats.delta.history import History


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
    )
