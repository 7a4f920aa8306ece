"""A change read's range on a Hudi upstream: its positions are instants'
completion times (the order Hudi's incremental query uses since 1.0), and a
range is chosen against the upstream's active timeline, its cleans and its
compactions (formats/change_range.py has what every format shares).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.formats.change_range import ChangeRead, check_read_arguments


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
            f"{delta_commit} (written while compaction {compaction} was pending)"
            for delta_commit, completed, compaction in timeline.on_pending_compactions
            if completed > consumed
        ]
        if unreadable:
            return (
                f"is followed by delta commit(s) {', '.join(unreadable)}: Hudi's CDC query "
                "cannot read a delta commit written on the file slice of a compaction that "
                "completed after it (it finds no file slice before it)"
            )
    return None
