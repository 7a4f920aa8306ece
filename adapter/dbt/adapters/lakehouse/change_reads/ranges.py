"""Change reads: the range of an upstream's commits a model reads in this run.

A model reads what its upstream Hudi table committed after the instant it last
consumed, up to the upstream's latest completed instant at compile time. That
`end` instant is written into the extra metadata of the model's own commit, so
the recorded position can never say more or less than what was written: a run
that dies before its commit leaves the old position, and the next run reads the
same range again. Instants are Hudi completion times (the order Hudi's
incremental query uses since 1.0); the begin is exclusive, the end inclusive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from dbt_common.exceptions import CompilationError

MODES = ("latest_state", "cdc")
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
class Timeline:
    """What planning a read needs of the upstream's active timeline."""

    # (instant, completion time) of each completed write or table service.
    commits: tuple[tuple[str, str], ...] = ()
    # The cleaner may have removed the file slices written before this instant
    # (from the upstream's cleans); None if nothing was cleaned.
    retained_from: str | None = None
    # The compactions among the commits: a CDC read returns no change of
    # theirs, so it needs no file slice from before them.
    compactions: frozenset[str] = frozenset()
    # Delta commits written while a compaction was pending, which then
    # completed: (delta commit, its completion, compaction). See
    # written_on_pending_compactions.
    on_pending_compactions: tuple[tuple[str, str, str], ...] = ()

    @classmethod
    def from_commits(
        cls, commits: Iterable[tuple[str, str, str]], retained_from: str | None = None
    ) -> Timeline:
        """From the completed (instant, completion, action) of a table."""
        commits = list(commits)
        # On a merge-on-read table (its writes are delta commits) a `commit`
        # is a compaction; on copy-on-write it is a write.
        merge_on_read = any(action == "deltacommit" for _, _, action in commits)
        return cls(
            tuple((instant, completed) for instant, completed, _ in commits),
            retained_from,
            frozenset(i for i, _, action in commits if action == "commit" and merge_on_read),
            written_on_pending_compactions(commits),
        )

    @property
    def completions(self) -> list[str]:
        return sorted(completed for _, completed in self.commits)

    def first_write_after(self, begin: str) -> str | None:
        """The earliest instant whose changes a read after `begin` returns."""
        instants = [
            instant
            for instant, completed in self.commits
            if completed > begin and instant not in self.compactions
        ]
        return min(instants) if instants else None


def written_on_pending_compactions(
    commits: Iterable[tuple[str, str, str]],
) -> tuple[tuple[str, str, str], ...]:
    """From the completed (instant, completion, action) of a merge-on-read
    table: each delta commit requested while a compaction was planned and not
    yet complete, as (delta commit, its completion, compaction).

    Such a delta commit appends its log file to the file slice the compaction
    will create, whose base file does not exist yet; its commit metadata
    records the slice without one. Once the compaction has completed, Hudi
    1.2's CDC query of a range that holds the delta commit looks for that base
    file as the before image and fails (NoSuchElementException in
    CDCFileGroupIterator.loadBeforeFileSliceIfNeeded), on every read. (While
    the compaction is still pending the read works; a latest_state read works
    either way.) The adapter's own writes never leave this shape behind (see
    formats/hudi/compaction_order.py): it comes from a lake written before that, or by
    another writer. On a merge-on-read table a completed `commit` is a
    compaction."""
    commits = list(commits)
    compactions = [
        (instant, completed) for instant, completed, action in commits if action == "commit"
    ]
    return tuple(
        (instant, completed, compaction)
        for instant, completed, action in commits
        if action == "deltacommit"
        for compaction, compacted in compactions
        if compaction < instant < compacted
    )


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
    # Keep only the changed rows that are the upstream's current records (see
    # ChangeReadQueries.source): set for incremental latest_state reads of an
    # upstream whose incremental query can return a write that lost to the
    # stored record. Its partition columns limit the check to the partitions
    # the changes touch.
    check_current: bool = False
    partition_columns: tuple[str, ...] = ()
    # hudi: positions are instants (completion times); iceberg: snapshot ids
    # (iceberg_ranges.py), which do not order as text; delta: versions
    # (delta_ranges.py), which order as numbers.
    upstream_format: str = "hudi"
    # An Iceberg or Delta upstream's unique key: an update's before and after
    # images are paired by it (and a Delta range's latest state kept per key).
    key: tuple[str, ...] = ()
    # The temporary view of Iceberg's changelog of the range (planner).
    changelog_view: str | None = None
    # A Delta upstream's location: a read is by its path (queries.py), of
    # the version a full read ends at or of the change feed of a range.
    location: str | None = None

    @property
    def is_empty(self) -> bool:
        if self.end is None or self.begin is None:
            return self.end is None
        if self.upstream_format == "iceberg":
            return self.begin == self.end
        if self.upstream_format == "delta":
            return int(self.begin) >= int(self.end)
        return self.begin >= self.end

    @property
    def is_incremental(self) -> bool:
        return self.begin is not None and not self.is_empty

    def describe(self) -> str:
        start = "the start" if self.begin is None else self.begin
        return f"{self.upstream} ({self.mode}) after {start} through {self.end or '-'}"


def plan_read(
    upstream: str,
    mode: str,
    consumed: str | None,
    timeline: Timeline,
    on_gap: str,
    model: str,
    columns: Iterable[tuple[str, str]] = (),
) -> ChangeRead:
    """Decide the range: `consumed` is this model's recorded position (None on a
    first or full-refresh run)."""
    check_read_arguments(mode, on_gap, model)
    columns = tuple(columns)
    instants = timeline.completions
    end = instants[-1] if instants else None
    if consumed is None or end is None:
        return ChangeRead(upstream, mode, None, end, columns=columns)
    gap = _gap(upstream, mode, consumed, timeline)
    if gap is None:
        return ChangeRead(upstream, mode, consumed, end, columns=columns)
    note = f"Model '{model}': the instant it last consumed from {upstream} ({consumed}) {gap}."
    if on_gap == "fail":
        raise CompilationError(
            note + " Rebuild with `dbt run --full-refresh --select " + model + "`."
        )
    return ChangeRead(
        upstream, mode, None, end, note=note + " Reading the full table instead.", columns=columns
    )


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
) -> ChangeRead:
    """The range of an Iceberg or Delta upstream (iceberg_ranges.py,
    delta_ranges.py): after `consumed` through `end`, unless `gap` says why
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
        key=tuple(key),
    )
    if consumed is None or end is None:
        return read
    reason = None if consumed == end else gap(consumed)
    if reason is None:
        return replace(read, begin=consumed)
    unit = "snapshot" if upstream_format == "iceberg" else "version"
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


def _gap(upstream: str, mode: str, consumed: str, timeline: Timeline) -> str | None:
    """Why reading after `consumed` is unsafe, or None if it is safe."""
    instants = timeline.completions
    if consumed not in instants and consumed < instants[-1]:
        # Archived, rolled back, restored or rebuilt: changes may be missing.
        return (
            "is no longer on that table's active timeline (archived, rolled back, restored or "
            "rebuilt); an incremental read from it could miss changes"
        )
    # A cdc read takes its images from the files each write in the range left;
    # once the cleaner removed them, Hudi fails on the missing files. (A
    # latest_state read falls back to the current file slices by itself.) A
    # compaction in the range needs none: a run killed during one leaves it
    # to complete after the consumer read the write before it, and the next
    # write's clean may remove the slices it compacted.
    first = timeline.first_write_after(consumed)
    if (
        mode == "cdc"
        and first is not None
        and timeline.retained_from is not None
        and first < timeline.retained_from
    ):
        return (
            f"is followed by writes whose files the cleaner has removed from {upstream} "
            f"(it retains instants from {timeline.retained_from} on); an incremental read from "
            "it could miss changes"
        )
    if mode == "cdc":
        unreadable = [
            f"{delta} (written while compaction {compaction} was pending)"
            for delta, completed, compaction in timeline.on_pending_compactions
            if completed > consumed
        ]
        if unreadable:
            return (
                f"is followed by delta commit(s) {', '.join(unreadable)}: Hudi's CDC query "
                "cannot read a delta commit written on the file slice of a compaction that "
                "completed after it (it finds no file slice before it)"
            )
    return None
