"""What an Iceberg table's snapshots say: the current snapshot's ancestry, and
what the adapter's writes recorded in them.

Where an Iceberg model records what it consumed (change reads) and what it
was built from (skip_unchanged): in the snapshot its write commits,
atomically with the rows. Spark SQL gives a MERGE no write options, so the
write is staged under Iceberg's write-audit-publish id (`spark.wap.id`, which
lands in the snapshot's summary) and then published; a run killed between the
two leaves a staged snapshot that is no ancestor of the current one, which
nobody reads, and the next run does the same work again. A table built whole
(CREATE OR REPLACE ... AS SELECT) records the same as table properties of
that commit (it starts a new ancestry), and a run that writes nothing as
table properties.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dbt.adapters.lakehouse.formats.merge_commits import parse_wap_id
from dbt.adapters.lakehouse.formats.table_format import CatalogHistory

# Iceberg's operation of a snapshot that rewrote files without changing rows.
REWRITE = "replace"


@dataclass(frozen=True)
class Snapshot:
    snapshot_id: str
    parent_id: str | None
    operation: str
    delete_files: int  # live delete files in the table as of this snapshot
    # The write-audit-publish id it was written under: its summary's wap.id
    # (a publish that fast-forwards keeps the staged snapshot, summary and
    # all) or published-wap-id (one cherry-picked onto a table that moved).
    wap_id: str | None


@dataclass(frozen=True)
class Ancestry(CatalogHistory):
    """The current snapshot's ancestors, oldest first."""

    snapshots: tuple[Snapshot, ...] = ()

    @classmethod
    def from_rows(cls, rows: Iterable[Any], current: str | None = None) -> Ancestry:
        """From rows of (snapshot_id, parent_id, operation, total-delete-files,
        wap.id, published-wap-id, is_current_ancestor) of every snapshot
        (lakehouse__iceberg_ancestry). The current snapshot: `current`, else
        the ancestor that no other ancestor names as parent."""
        rows = list(rows)
        if current is None:
            ancestors = [row for row in rows if len(row) > 6 and row[6]]
            parents = {str(row[1]) for row in ancestors if row[1] is not None}
            current = next((str(r[0]) for r in ancestors if str(r[0]) not in parents), None)
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

    def latest_record(self) -> dict[str, str]:
        """What the latest ancestor that recorded anything (a write of the
        adapter's) recorded; empty if none did."""
        for snapshot in reversed(self.snapshots):
            recorded = parse_wap_id(snapshot.wap_id)
            if recorded is not None:
                return recorded
        return {}

    def recorded(self, key: str) -> str | None:
        """The value of `key` in the latest record (latest_record)."""
        return self.latest_record().get(key)

    def writes_after(self, position: str) -> int | None:
        """How many snapshots that changed rows (not rewrites) came after
        `position`; None when it is no ancestor."""
        if position not in self.ids:
            return None
        return sum(1 for s in self.after(position) if s.operation != REWRITE)

    def lag(self, positions: list[str]) -> str:
        """Where a consumer stands, in snapshots that changed rows."""
        position = self.later(*positions) or ""
        behind = self.writes_after(position)
        if behind is None:
            return (
                f"snapshot {position}, no longer an ancestor of the current one "
                "(its next read is whole)"
            )
        return f"up to snapshot {position}" + (
            ", up to date" if behind == 0 else f", {behind} snapshot(s) behind"
        )
