"""The SQL text of change reads: the relation a model's FROM clause reads for a
range, and the signed rows and changed keys built from CDC images.

Planning (ranges.py, planner.py) decides what to read; this module only says
it in Spark SQL. Hudi's incremental and CDC queries are the table-valued
function `hudi_table_changes(table, mode, begin, end)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from dbt_common.exceptions import CompilationError

if TYPE_CHECKING:
    from dbt.adapters.lakehouse.change_reads.ranges import ChangeRead

# Empty CDC result with the shape of Hudi's CDC query (op, ts_ms, before, after).
EMPTY_CDC = (
    "(select cast(null as string) as op, cast(null as string) as ts_ms, "
    "cast(null as string) as before, cast(null as string) as after where false)"
)


def read_relation(read: ChangeRead) -> str:
    """What the model's FROM clause reads: the range's scratch table once the
    materialization staged it, else the upstream itself."""
    if read.staged_as is not None:
        return f"(select * from {read.staged_as})"
    return source_relation(read)


def source_relation(read: ChangeRead) -> str:
    """The relation that reads the range from the upstream itself."""
    if read.end is None:
        return EMPTY_CDC if read.mode == "cdc" else f"(select * from {read.upstream} where false)"
    if read.begin is None and read.mode == "cdc":
        return _snapshot_as_inserts(read)
    begin = "earliest" if read.begin is None else read.begin
    changes = f"hudi_table_changes('{read.upstream}', '{read.mode}', '{begin}', '{read.end}')"
    if read.is_empty:
        return f"(select * from {changes} where false)"
    if read.check_current:
        return current_records(read, changes)
    return f"(select * from {changes})"


def current_records(read: ChangeRead, changes: str) -> str:
    """The rows of `changes` that are the upstream's current records.

    Hudi 1.2's incremental query on a merge-on-read table merges only the
    files the range's commits wrote: a log record that lost to the stored
    record by the ordering field (a late, older version) comes back as if it
    had won (apache/hudi#18943). The snapshot merges the whole file slice, so a
    row of the range is current when the snapshot holds its record with the
    same commit time; a lost write's record has the stored commit time. A
    record a later commit changed again is left to the read of that commit.
    The snapshot's side reads three metadata columns, of the partitions the
    changes touch only (Spark evaluates the scalar subquery first and prunes
    the scan); that is the cost of the check."""
    current = f"select _hoodie_record_key, _hoodie_partition_path, _hoodie_commit_time from {read.upstream}"
    if read.partition_columns:
        # A struct, so that a null partition value matches too.
        value = f"struct({', '.join(f'`{c}`' for c in read.partition_columns)})"
        current += f" where array_contains((select collect_set({value}) from {changes}), {value})"
    on = " and ".join(
        f"changes.{column} = current.{column}"
        for column in ("_hoodie_record_key", "_hoodie_partition_path", "_hoodie_commit_time")
    )
    return f"(select changes.* from {changes} as changes left semi join ({current}) as current on {on})"


def _snapshot_as_inserts(read: ChangeRead) -> str:
    """A full cdc read: every current record as an insert. Reading the CDC log
    from the start instead would need every file slice ever written, which the
    cleaner removes, and replays history only to arrive here."""
    if not read.columns:
        raise ValueError(f"a full cdc read of {read.upstream} needs its columns")
    fields = ", ".join(
        f"'{name}', {image_json(name, data_type)}" for name, data_type in read.columns
    )
    return (
        f"(select 'i' as op, _hoodie_commit_time as ts_ms, cast(null as string) as before, "
        f"to_json(named_struct({fields})) as after from {read.upstream})"
    )


def image_json(column: str, data_type: str) -> str:
    """A column as Hudi's CDC images write it (the inverse of image_value)."""
    kind = data_type.lower()
    if kind == "date":
        return f"datediff({column}, date'1970-01-01')"
    if kind.startswith("timestamp"):
        return f"unix_micros({column})"
    return column


def image_value(image: str, field: str, data_type: str) -> str:
    """A typed column of a parsed CDC before/after image (`image`, a struct of
    its fields as text, from JSON written from Hudi's Avro record: dates are
    days since the epoch, timestamps microseconds)."""
    raw = f"{image}.`{field}`"
    kind = data_type.lower()
    if kind == "date":
        return f"date_add(date'1970-01-01', cast({raw} as int))"
    if kind.startswith("timestamp"):
        return f"timestamp_micros(cast({raw} as bigint))"
    return f"cast({raw} as {data_type})"


def upstream_name(read: ChangeRead, column: str) -> str:
    """`column` as the upstream spells it, the name its CDC images carry."""
    return next((name for name, _ in read.columns if name.lower() == column.lower()), column)


def _check_columns(
    read: ChangeRead, names: list[str], column_types: Mapping[str, str], macro: str
) -> None:
    missing = [n for n in names if n.lower() not in column_types]
    if missing:
        raise CompilationError(f"{macro}: {read.upstream} has no column(s) {', '.join(missing)}.")


def _has_image(image: str) -> str:
    # A missing image is SQL NULL or, from some CDC reads (inserts of a
    # merge-on-read delta commit), the JSON text 'null'.
    return f"{image} is not null and {image} != 'null'"


def column_types(read: ChangeRead) -> dict[str, str]:
    """The upstream's column types by lower-cased name: a cdc read carries them
    (planning described the upstream), so no second look is needed."""
    return {name.lower(): data_type for name, data_type in read.columns}


def signed_changes_sql(read: ChangeRead, columns: Iterable[str], macro: str) -> str:
    """The changes of `read` as signed rows of `columns`: each after image with
    `_sign` +1, each before image with -1. Summing `_sign * measure` by group
    gives what each group gained: an update moves its old value out and its new
    one in, a delete takes its value out, a record that changed group leaves
    its old group. A full read is the snapshot, all +1."""
    names = list(columns)
    types = column_types(read)
    _check_columns(read, names, types, macro)
    if read.begin is None:
        return f"(select 1 as _sign, {', '.join(names)} from {read.upstream})"
    # Each image is parsed once, into the fields asked for (as text, typed
    # after): a JSON path per column parsed the whole image again for each
    # one, and on a batch's changes that was most of a signed read's time.
    fields = {n: upstream_name(read, n) for n in names}
    schema = ", ".join(f"`{field}` string" for field in dict.fromkeys(fields.values()))
    images = []
    for image, sign in (("after", 1), ("before", -1)):
        values = ", ".join(
            f"{image_value('c.image', fields[n], types[n.lower()])} as {n}" for n in names
        )
        parsed = (
            f"select from_json(c.{image}, '{schema}') as image "
            f"from {read_relation(read)} as c where {_has_image('c.' + image)}"
        )
        images.append(f"select {sign} as _sign, {values} from ({parsed}) as c")
    return f"({' union all '.join(images)})"


def changed_keys_sql(read: ChangeRead, keys: Iterable[str]) -> str:
    """Distinct values of `keys` touched by the changes of `read`: from both the
    before and the after image, so a deleted record or one that moved to another
    group marks its old group too. A full read takes the keys of the snapshot."""
    names = list(keys)
    signed = signed_changes_sql(read, names, "lake_changed_keys")
    return f"(select distinct {', '.join(names)} from {signed} as images)"
