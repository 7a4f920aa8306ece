"""Incremental commit reads between lake tables, exactly once.

A model reads what its upstream Hudi table committed after the instant it last
consumed, up to the upstream's latest completed instant at compile time. That
`end` instant is written into the extra metadata of the model's own commit, so
the recorded position can never say more or less than what was written: a run
that dies before its commit leaves the old position, and the next run reads the
same range again. Instants are Hudi completion times (the order Hudi's
incremental query uses since 1.0); the begin is exclusive, the end inclusive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional

MODES = ("latest_state", "cdc")
GAP_POLICIES = ("full", "fail")
# Hudi copies write options with this prefix into the commit's extra metadata.
COMMIT_META_PREFIX = "hoodie.lakehouse."
POSITION_PREFIX = COMMIT_META_PREFIX + "consumed."
# Empty CDC result with the shape of Hudi's CDC query (op, ts_ms, before, after).
EMPTY_CDC = (
    "(select cast(null as string) as op, cast(null as string) as ts_ms, "
    "cast(null as string) as before, cast(null as string) as after where false)"
)


def position_key(upstream: str) -> str:
    return POSITION_PREFIX + upstream.lower()


@dataclass(frozen=True)
class ChangeRead:
    """One upstream range a model reads in this run."""

    upstream: str  # schema.table
    mode: str
    begin: Optional[str]  # exclusive; None reads from the start
    end: Optional[str]  # inclusive; None when the upstream has no commit yet
    note: Optional[str] = None  # why a full read replaced an incremental one

    @property
    def is_empty(self) -> bool:
        return self.end is None or (self.begin is not None and self.begin >= self.end)

    def sql(self) -> str:
        """A parenthesised relation for the model's FROM clause."""
        if self.end is None:
            return EMPTY_CDC if self.mode == "cdc" else f"(select * from {self.upstream} where false)"
        begin = "earliest" if self.begin is None else self.begin
        changes = f"hudi_table_changes('{self.upstream}', '{self.mode}', '{begin}', '{self.end}')"
        if self.is_empty:
            return f"(select * from {changes} where false)"
        return f"(select * from {changes})"

    def describe(self) -> str:
        start = "the start" if self.begin is None else self.begin
        return f"{self.upstream} ({self.mode}) after {start} through {self.end or '-'}"


def plan_read(
    upstream: str,
    mode: str,
    consumed: Optional[str],
    completed: Iterable[str],
    on_gap: str,
    model: str,
) -> ChangeRead:
    """Decide the range: `consumed` is this model's recorded position (None on a
    first or full-refresh run), `completed` the completion times of the
    upstream's active timeline."""
    from dbt_common.exceptions import CompilationError

    if mode not in MODES:
        raise CompilationError(f"Model '{model}': lake_changes mode {mode!r} is not valid. Use one of: {', '.join(MODES)}.")
    if on_gap not in GAP_POLICIES:
        raise CompilationError(f"Model '{model}': lake_changes on_gap {on_gap!r} is not valid. Use one of: {', '.join(GAP_POLICIES)}.")
    instants: List[str] = sorted(completed)
    end = instants[-1] if instants else None
    if consumed is None or end is None:
        return ChangeRead(upstream, mode, None, end)
    if consumed in instants or consumed >= end:
        return ChangeRead(upstream, mode, consumed, end)
    # The consumed instant left the upstream's active timeline: archived, rolled
    # back, restored or rebuilt. Reading from it could skip changes, so never do
    # that silently.
    note = (
        f"Model '{model}': the instant it last consumed from {upstream} ({consumed}) is no longer on "
        "that table's active timeline (archived, rolled back, restored or rebuilt); "
        "an incremental read from it could miss changes."
    )
    if on_gap == "fail":
        raise CompilationError(note + " Rebuild with `dbt run --full-refresh --select " + model + "`.")
    return ChangeRead(upstream, mode, None, end, note=note + " Reading the full table instead.")


def image_value(image: str, column: str, data_type: str) -> str:
    """A typed column of a CDC before/after image (JSON written from Hudi's Avro
    record: dates are days since the epoch, timestamps microseconds)."""
    raw = f"get_json_object({image}, '$.{column}')"
    kind = data_type.lower()
    if kind == "date":
        return f"date_add(date'1970-01-01', cast({raw} as int))"
    if kind.startswith("timestamp"):
        return f"timestamp_micros(cast({raw} as bigint))"
    return f"cast({raw} as {data_type})"


def changed_keys_sql(read: ChangeRead, keys: Iterable[str], column_types: dict) -> str:
    """Distinct values of `keys` touched by the changes of `read`: from both the
    before and the after image, so a deleted record or one that moved to another
    group marks its old group too. A full read takes the keys of the snapshot."""
    keys = list(keys)
    missing = [k for k in keys if k.lower() not in column_types]
    if missing:
        from dbt_common.exceptions import CompilationError

        raise CompilationError(f"lake_changed_keys: {read.upstream} has no column(s) {', '.join(missing)}.")
    if read.begin is None:
        snapshot = ChangeRead(read.upstream, "latest_state", None, read.end)
        return f"(select distinct {', '.join(keys)} from {snapshot.sql()} as snapshot)"
    images = []
    for image in ("before", "after"):
        values = ", ".join(f"{image_value('c.' + image, k, column_types[k.lower()])} as {k}" for k in keys)
        images.append(f"select {values} from {read.sql()} as c where c.{image} is not null")
    return f"(select distinct {', '.join(keys)} from ({' union all '.join(images)}) as images)"
