"""A change read's range: the upstream's commits a model reads in this run,
whatever the upstream's format, and how what it consumed is recorded.

A model reads what its upstream committed after the position it last
consumed, up to the upstream's latest position at compile time. That end is
recorded in the model's own commit, so the recorded position can never say
more or less than what was written: a run that dies before its commit leaves
the old position, and the next run reads the same range again. The begin is
exclusive, the end inclusive. What a position is (a Hudi completion time, an
Iceberg snapshot id, a Delta version) and how a range is chosen is each
format's (formats/<format>/change_ranges.py); change_reads/ plans a run's
reads with them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from dbt_common.exceptions import CompilationError

MODES = ("latest_state", "cdc")
# How a format's positions compare (ChangeRead.positions): as text (later is
# larger), as numbers, or only for equality (the range's end is the begin).
POSITIONS = ("text", "number", "identity")
GAP_POLICIES = ("full", "fail")
# Hudi copies write options with this prefix into the commit's extra metadata.
COMMIT_META_PREFIX = "hoodie.lakehouse."
POSITION_PREFIX = COMMIT_META_PREFIX + "consumed."


# A run that reads a range and writes nothing (every row filtered out) has no
# commit to record its position in: it records it as a table property instead,
# or the position would stay behind until the upstream archived it, and the
# next read would have to start over from the whole table. Not a hoodie.* key:
# Hudi would copy that into the commit metadata of every later write.
SKIPPED_PREFIX = "lakehouse.consumed."


def position_key(upstream: str) -> str:
    return POSITION_PREFIX + upstream.lower()


def skipped_position_key(upstream: str) -> str:
    return SKIPPED_PREFIX + upstream.lower()


def latest_position(*positions: str | None) -> str | None:
    """The later of the recorded positions (instants order as strings)."""
    return max((p for p in positions if p), default=None)


@dataclass(frozen=True)
class ChangeRead:
    """One upstream range a model reads in this run."""

    upstream: str  # schema.table
    mode: str
    begin: str | None  # exclusive; None reads from the start
    end: str | None  # inclusive; None when the upstream has no commit yet
    note: str | None = None  # why a full read replaced an incremental one
    # (name, type) of the upstream's columns: a full cdc read renders them as images.
    columns: tuple[tuple[str, str], ...] = ()
    # Scratch table the materialization fills with the range before the model's
    # query runs, so the changes are read from the upstream once (the run log
    # counts them too); None for reads that are empty or whole-table, and for
    # a latest_state range of a copy-on-write upstream (planner._worth_staging).
    staged_as: str | None = None
    # Reading the range costs more than reading its files once (its format's
    # prepare says: files merged at each read, a changelog computed at each
    # read): the materialization copies it once (planner._worth_staging).
    costly_to_read: bool = False
    # Keep only the changed rows that are the upstream's current records (see
    # ChangeReadQueries.source): set for incremental latest_state reads of an
    # upstream whose incremental query can return a write that lost to the
    # stored record. Its partition columns limit the check to the partitions
    # the changes touch.
    check_current: bool = False
    partition_columns: tuple[str, ...] = ()
    # The upstream's format, as registered (formats/registry.py; '': the
    # default format), and how its positions compare (POSITIONS: a Hudi
    # instant orders as text, a Delta version as a number, an Iceberg
    # snapshot id not at all).
    upstream_format: str = ""
    positions: str = "text"
    # An Iceberg or Delta upstream's unique key: an update's before and after
    # images are paired by it (and a Delta range's latest state kept per key).
    key: tuple[str, ...] = ()
    # The temporary view of Iceberg's changelog of the range (its format's prepare).
    changelog_view: str | None = None
    # The upstream's location, for a format that reads a range by the
    # table's path (Delta: the version a full read ends at, the change feed
    # of a range).
    location: str | None = None

    @property
    def is_empty(self) -> bool:
        if self.end is None or self.begin is None:
            return self.end is None
        if self.positions == "number":
            return int(self.begin) >= int(self.end)
        if self.positions == "identity":
            return self.begin == self.end
        return self.begin >= self.end

    @property
    def is_incremental(self) -> bool:
        return self.begin is not None and not self.is_empty

    def describe(self) -> str:
        start = "the start" if self.begin is None else self.begin
        return f"{self.upstream} ({self.mode}) after {start} through {self.end or '-'}"


@dataclass(frozen=True)
class ReadRequest:
    """What a model asks to read of an upstream, as the planner hands it to
    the upstream's format (table_format.ChangeHistory.plan)."""

    upstream: str  # schema.table
    mode: str
    on_gap: str
    model: str  # the reading model's name, for messages
    # The upstream's location, when its catalog was asked ('' when not).
    location: str
    # (name, type) of the upstream's columns; the unique key it was written
    # with (each a question to the catalog: asked only by a read that needs it).
    columns: Callable[[], list[tuple[str, str]]]
    key: Callable[[], list[str]]


def no_rows(read: ChangeRead, sql: Callable[..., str]) -> str:
    """The relation of an empty read, with the read's columns (`sql` renders a
    statement macro: statements.py)."""
    if read.mode == "cdc":
        return sql("no_cdc_rows")
    return sql("no_rows", relation=read.upstream)


def plan_versioned_read(
    upstream: str,
    mode: str,
    consumed: str | None,
    end: str | None,
    gap: Callable[[str], str | None],
    on_gap: str,
    model: str,
    columns: Iterable[tuple[str, str]],
    key: Iterable[str],
    upstream_format: str,
    unit: str,
    positions: str,
) -> ChangeRead:
    """The range of an upstream whose positions are versions of the table
    (Iceberg's snapshots, Delta's versions: formats/<format>/change_ranges.py,
    `unit` naming them): after `consumed` through `end`, unless `gap` says why
    reading after `consumed` could miss changes; then whole, or an error with
    on_gap='fail'."""
    check_read_arguments(mode, on_gap, model)
    read = ChangeRead(
        upstream,
        mode,
        None,
        end,
        columns=tuple(columns),
        upstream_format=upstream_format,
        positions=positions,
        key=tuple(key),
    )
    if consumed is None or end is None:
        return read
    reason = None if consumed == end else gap(consumed)
    if reason is None:
        return replace(read, begin=consumed)
    note = f"Model '{model}': the {unit} it last consumed from {upstream} ({consumed}) {reason}."
    if on_gap == "fail":
        raise CompilationError(f"{note} Rebuild with `dbt run --full-refresh --select {model}`.")
    return replace(read, note=note + " Reading the full table instead.")


def check_read_arguments(mode: str, on_gap: str, model: str) -> None:
    if mode not in MODES:
        raise CompilationError(
            f"Model '{model}': lake_changes mode {mode!r} is not valid. Use one of: {', '.join(MODES)}."
        )
    if on_gap not in GAP_POLICIES:
        raise CompilationError(
            f"Model '{model}': lake_changes on_gap {on_gap!r} is not valid. Use one of: {', '.join(GAP_POLICIES)}."
        )
