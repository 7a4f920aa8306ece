"""Change reads of an Iceberg upstream: positions are snapshot ids.

A model reads what an upstream Iceberg table committed after the snapshot it
last consumed (exclusive) through the upstream's current snapshot at compile
time (inclusive), from Iceberg's changelog (the `create_changelog_view`
procedure: inserts, deletes, updates as before and after images, the rows a
copy-on-write rewrite carried over unchanged removed). A range is readable
when the consumed snapshot is an ancestor of the current one; a rewrite (a
`replace` snapshot: compaction) in it carries no changes, as Iceberg's
changelog skips it.

What Iceberg 1.10 cannot read: its changelog scan refuses any snapshot that
has delete files (a merge-on-read update or delete leaves them until a
compaction rewrites them away), so such a range is read whole instead (or
fails, with on_gap='fail'), and the message says to make the upstream
`table_type: cow`.

Where an Iceberg model records what it consumed: formats/iceberg/history.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats.change_range import ChangeRead
from dbt.adapters.lakehouse.formats.iceberg.history import REWRITE, Ancestry


def plan_read(
    upstream: str,
    mode: str,
    consumed: str | None,
    ancestry: Ancestry,
    on_gap: str,
    model: str,
    columns: Sequence[tuple[str, str]],
    key: Sequence[str],
) -> ChangeRead:
    """Decide the range of an Iceberg upstream (change_range.plan_versioned_read)."""
    return change_range.plan_versioned_read(
        upstream,
        mode,
        consumed,
        ancestry.current,
        lambda position: _gap(upstream, position, ancestry),
        on_gap,
        model,
        columns,
        key,
        "iceberg",
        "snapshot",
    )


def _gap(upstream: str, consumed: str, ancestry: Ancestry) -> str | None:
    """Why reading after `consumed` is unsafe or impossible, or None."""
    if consumed not in ancestry.ids:
        return (
            "is no longer an ancestor of that table's current snapshot (expired, rolled back "
            "or rebuilt); an incremental read from it could miss changes"
        )
    with_deletes = [
        s.snapshot_id
        for s in ancestry.after(consumed)
        if s.operation != REWRITE and s.delete_files > 0
    ]
    if with_deletes:
        return (
            f"is followed by snapshot(s) with delete files ({', '.join(with_deletes[:3])}), "
            "which Iceberg's changelog scan cannot read: merge-on-read updates and deletes "
            f"write them. Make {upstream} `table_type: cow` for exact change reads"
        )
    return None
