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

from collections.abc import Iterable
from dataclasses import dataclass

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

    @property
    def completions(self) -> list[str]:
        return sorted(completed for _, completed in self.commits)

    def first_instant_after(self, begin: str) -> str | None:
        """The earliest instant whose write a read after `begin` needs."""
        instants = [instant for instant, completed in self.commits if completed > begin]
        return min(instants) if instants else None


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
    # counts them too); None for reads that are empty or whole-table.
    staged_as: str | None = None

    @property
    def is_empty(self) -> bool:
        return self.end is None or (self.begin is not None and self.begin >= self.end)

    @property
    def is_incremental(self) -> bool:
        return self.begin is not None and not self.is_empty

    def sql(self) -> str:
        """A parenthesised relation for the model's FROM clause."""
        if self.staged_as is not None:
            return f"(select * from {self.staged_as})"
        return self.source_sql()

    def source_sql(self) -> str:
        """The relation that reads the range from the upstream itself."""
        if self.end is None:
            return (
                EMPTY_CDC if self.mode == "cdc" else f"(select * from {self.upstream} where false)"
            )
        if self.begin is None and self.mode == "cdc":
            return self._snapshot_as_inserts()
        begin = "earliest" if self.begin is None else self.begin
        changes = f"hudi_table_changes('{self.upstream}', '{self.mode}', '{begin}', '{self.end}')"
        if self.is_empty:
            return f"(select * from {changes} where false)"
        return f"(select * from {changes})"

    def _snapshot_as_inserts(self) -> str:
        """A full cdc read: every current record as an insert. Reading the CDC
        log from the start instead would need every file slice ever written,
        which the cleaner removes, and replays history only to arrive here."""
        if not self.columns:
            raise ValueError(f"a full cdc read of {self.upstream} needs its columns")
        fields = ", ".join(
            f"'{name}', {image_json(name, data_type)}" for name, data_type in self.columns
        )
        return (
            f"(select 'i' as op, _hoodie_commit_time as ts_ms, cast(null as string) as before, "
            f"to_json(named_struct({fields})) as after from {self.upstream})"
        )

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
    from dbt_common.exceptions import CompilationError

    if mode not in MODES:
        raise CompilationError(
            f"Model '{model}': lake_changes mode {mode!r} is not valid. Use one of: {', '.join(MODES)}."
        )
    if on_gap not in GAP_POLICIES:
        raise CompilationError(
            f"Model '{model}': lake_changes on_gap {on_gap!r} is not valid. Use one of: {', '.join(GAP_POLICIES)}."
        )
    columns = tuple(columns)
    instants = timeline.completions
    end = instants[-1] if instants else None
    if consumed is None or end is None:
        return ChangeRead(upstream, mode, None, end, columns=columns)
    gap = _gap(upstream, mode, consumed, timeline)
    if gap is None:
        return ChangeRead(upstream, mode, consumed, end, columns=columns)
    note = f"Model '{model}': the instant it last consumed from {upstream} ({consumed}) {gap}; an incremental read from it could miss changes."
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
        return "is no longer on that table's active timeline (archived, rolled back, restored or rebuilt)"
    # A cdc read takes its images from the files each write in the range left;
    # once the cleaner removed them, Hudi fails on the missing files. (A
    # latest_state read falls back to the current file slices by itself.)
    first = timeline.first_instant_after(consumed)
    if (
        mode == "cdc"
        and first is not None
        and timeline.retained_from is not None
        and first < timeline.retained_from
    ):
        return (
            f"is followed by writes whose files the cleaner has removed from {upstream} "
            f"(it retains instants from {timeline.retained_from} on)"
        )
    return None


def image_json(column: str, data_type: str) -> str:
    """A column as Hudi's CDC images write it (the inverse of image_value)."""
    kind = data_type.lower()
    if kind == "date":
        return f"datediff({column}, date'1970-01-01')"
    if kind.startswith("timestamp"):
        return f"unix_micros({column})"
    return column


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


def _check_columns(read: ChangeRead, names: list[str], column_types: dict, macro: str) -> None:
    missing = [n for n in names if n.lower() not in column_types]
    if missing:
        from dbt_common.exceptions import CompilationError

        raise CompilationError(f"{macro}: {read.upstream} has no column(s) {', '.join(missing)}.")


def _has_image(image: str) -> str:
    # A missing image is SQL NULL or, from some CDC reads (inserts of a
    # merge-on-read delta commit), the JSON text 'null'.
    return f"{image} is not null and {image} != 'null'"


def signed_changes_sql(
    read: ChangeRead, columns: Iterable[str], column_types: dict, macro: str
) -> str:
    """The changes of `read` as signed rows of `columns`: each after image with
    `_sign` +1, each before image with -1. Summing `_sign * measure` by group
    gives what each group gained: an update moves its old value out and its new
    one in, a delete takes its value out, a record that changed group leaves
    its old group. A full read is the snapshot, all +1."""
    names = list(columns)
    _check_columns(read, names, column_types, macro)
    if read.begin is None:
        return f"(select 1 as _sign, {', '.join(names)} from {read.upstream})"
    images = []
    for image, sign in (("after", 1), ("before", -1)):
        values = ", ".join(
            f"{image_value('c.' + image, n, column_types[n.lower()])} as {n}" for n in names
        )
        images.append(
            f"select {sign} as _sign, {values} from {read.sql()} as c where {_has_image('c.' + image)}"
        )
    return f"({' union all '.join(images)})"


def changed_keys_sql(read: ChangeRead, keys: Iterable[str], column_types: dict) -> str:
    """Distinct values of `keys` touched by the changes of `read`: from both the
    before and the after image, so a deleted record or one that moved to another
    group marks its old group too. A full read takes the keys of the snapshot."""
    keys = list(keys)
    signed = signed_changes_sql(read, keys, column_types, "lake_changed_keys")
    return f"(select distinct {', '.join(keys)} from {signed} as images)"
