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

import dataclasses
from collections.abc import Sequence

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.iceberg.history import REWRITE, Ancestry
from dbt.adapters.lakehouse.formats.table_format import ChangeHistory, Lake, Sql

# The catalog that keeps Iceberg's tables, and whose `system` has its procedures.
CATALOG = "iceberg"


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
        # Snapshot ids do not order: a range is empty when it ends where it begins.
        "identity",
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


class IcebergChanges(ChangeHistory):
    def __init__(self, ancestry: Ancestry) -> None:
        self._ancestry = ancestry

    def later(self, *positions: str | None) -> str | None:
        return self._ancestry.later(*positions)

    def plan(self, request: ReadRequest, consumed: str | None) -> ChangeRead:
        return plan_read(
            request.upstream,
            request.mode,
            consumed,
            self._ancestry,
            request.on_gap,
            request.model,
            request.columns(),
            request.key(),
        )

    def prepare(self, lake: Lake, read: ChangeRead, name: str) -> ChangeRead:
        """Create the session's temporary view of Iceberg's changelog of an
        incremental range (create_changelog_view): net changes for
        latest_state, each change with updates paired by the upstream's key
        for cdc. Computed at each read of the view: costly to read."""
        if not read.is_incremental:
            return read
        view = "lakehouse_changes_" + "".join(c if c.isalnum() else "_" for c in name)
        # (Iceberg's procedures are its catalog's: the one that keeps a table
        # of the session catalog, or the one a name of three parts names.)
        parts = read.upstream.split(".")
        catalog, table = (
            (parts[0], ".".join(parts[1:])) if len(parts) == 3 else (CATALOG, read.upstream)
        )
        lake.ask(
            "iceberg_changelog_view",
            catalog=catalog,
            table=table,
            view=view,
            begin=read.begin,
            end=read.end,
            net_changes=read.mode == "latest_state",
            key=list(read.key),
        )
        return dataclasses.replace(read, changelog_view=view, costly_to_read=True)


def change_source(read: ChangeRead, sql: Sql) -> str:
    """The relation that reads a planned range of an Iceberg upstream: its
    changelog view, or the snapshot it ends at when read whole."""
    if read.is_empty:
        return change_range.no_rows(read, sql)
    if read.begin is None:
        if read.mode == "cdc":
            return sql(
                "iceberg_snapshot_as_cdc_inserts",
                table=read.upstream,
                snapshot_id=read.end,
                columns=list(read.columns),
            )
        return as_of(read, sql)
    if read.changelog_view is None:
        raise ValueError(f"the range of {read.upstream} has no changelog view")
    if read.mode == "cdc":
        return sql(
            "iceberg_cdc_rows",
            view=read.changelog_view,
            columns=list(read.columns),
            key=list(read.key),
        )
    return sql("iceberg_latest_state", view=read.changelog_view, columns=list(read.columns))


def as_of(read: ChangeRead, sql: Sql) -> str:
    """The snapshot a full read ends at."""
    if read.end is None:
        return read.upstream
    return sql("iceberg_as_of", table=read.upstream, snapshot_id=read.end)
