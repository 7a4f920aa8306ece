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

Where an Iceberg model records what it consumed: in the snapshot its write
commits, atomically with the rows. Spark SQL gives a MERGE no write options,
so the write is staged under Iceberg's write-audit-publish id (`spark.wap.id`,
which lands in the snapshot's summary) and then published; a run killed
between the two leaves a staged snapshot nobody reads, and the next run reads
the same range again. A table built whole (CREATE OR REPLACE ... AS SELECT)
records them as table properties of the same commit, and a run that writes
nothing as table properties (ranges.SKIPPED_PREFIX).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.change_reads import ranges
from dbt.adapters.lakehouse.change_reads.ranges import ChangeRead

# Iceberg's operation of a snapshot that rewrote files without changing rows.
REWRITE = "replace"
# What starts the write-audit-publish id of a write that records positions.
WAP_PREFIX = "lakehouse:"
# The snapshot summary keys that hold it: staged, and cherry-picked onto a
# moved table (a fast-forward keeps the staged snapshot, and its summary).
WAP_SUMMARY_KEYS = ("wap.id", "published-wap-id")


@dataclass(frozen=True)
class Snapshot:
    snapshot_id: str
    parent_id: str | None
    operation: str
    delete_files: int  # live delete files in the table as of this snapshot
    wap_id: str | None  # the write-audit-publish id it was written under


@dataclass(frozen=True)
class Ancestry:
    """The current snapshot's ancestors, oldest first."""

    snapshots: tuple[Snapshot, ...] = ()

    @classmethod
    def from_rows(cls, rows: Iterable[Any], current: str | None) -> Ancestry:
        """From rows of (snapshot_id, parent_id, operation, total-delete-files,
        wap.id, published-wap-id) of every snapshot, and the current snapshot id."""
        by_id: dict[str, Snapshot] = {}
        for row in rows:
            wap = next((str(v) for v in row[4:6] if v), None)
            snapshot = Snapshot(
                snapshot_id=str(row[0]),
                parent_id=None if row[1] is None else str(row[1]),
                operation=str(row[2]),
                delete_files=int(row[3] or 0),
                wap_id=wap,
            )
            by_id[snapshot.snapshot_id] = snapshot
        chain: list[Snapshot] = []
        at = current
        while at is not None and at in by_id:
            chain.append(by_id[at])
            at = by_id[at].parent_id
        return cls(tuple(reversed(chain)))

    @property
    def ids(self) -> list[str]:
        return [s.snapshot_id for s in self.snapshots]

    @property
    def current(self) -> str | None:
        return self.snapshots[-1].snapshot_id if self.snapshots else None

    def after(self, begin: str) -> list[Snapshot]:
        """The snapshots after `begin` (an ancestor), through the current one."""
        return list(self.snapshots[self.ids.index(begin) + 1 :])

    def later(self, *positions: str | None) -> str | None:
        """The latest of `positions` in this ancestry; one that is not in it
        (expired, rolled back, rebuilt) only when none is."""
        known = [p for p in positions if p]
        ids = self.ids
        ancestors = [p for p in known if p in ids]
        if ancestors:
            return max(ancestors, key=ids.index)
        return known[0] if known else None

    def recorded(self, key: str) -> str | None:
        """The value of `key` among the positions the latest snapshot that
        recorded any (a write that consumed a range) recorded."""
        for snapshot in reversed(self.snapshots):
            positions = parse_wap_id(snapshot.wap_id)
            if positions is not None:
                return positions.get(key)
        return None


def wap_id(run: str, positions: Mapping[str, str]) -> str:
    """The write-audit-publish id of a write that consumed `positions`
    (position key -> snapshot or instant): unique per run, as Iceberg
    publishes a staged snapshot by it."""
    return WAP_PREFIX + json.dumps(
        {"run": run, "consumed": dict(positions)}, sort_keys=True, separators=(",", ":")
    )


def parse_wap_id(value: str | None) -> dict[str, str] | None:
    if not value or not value.startswith(WAP_PREFIX):
        return None
    try:
        consumed = json.loads(value[len(WAP_PREFIX) :]).get("consumed")
    except (ValueError, AttributeError):
        return None
    return {str(k): str(v) for k, v in consumed.items()} if isinstance(consumed, dict) else None


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
    """Decide the range of an Iceberg upstream (see ranges.plan_read, whose
    checks of mode and on_gap it shares)."""
    ranges.check_read_arguments(mode, on_gap, model)
    end = ancestry.current
    read = ChangeRead(
        upstream, mode, None, end, columns=tuple(columns), upstream_format="iceberg", key=tuple(key)
    )
    if consumed is None or end is None:
        return read
    gap = None if consumed == end else _gap(upstream, consumed, ancestry)
    if gap is None:
        return replace(read, begin=consumed)
    note = f"Model '{model}': the snapshot it last consumed from {upstream} ({consumed}) {gap}."
    if on_gap == "fail":
        raise CompilationError(f"{note} Rebuild with `dbt run --full-refresh --select {model}`.")
    return replace(read, note=note + " Reading the full table instead.")


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
