"""What a change read reads: the relation a model's FROM clause reads for a
planned range, and the signed rows and changed keys built from CDC images.

Planning (planner.py, with the upstream's format) decides the range; this
module reads it from the staged scratch table, or asks the upstream's format
for the relation that reads it (TableFormat.change_source: nothing, the
snapshot, the changes, the changes checked against the snapshot), and builds
signed rows and changed keys on it. Their text is the statement macros'
(macros/statements/change_reads.sql).
"""

from __future__ import annotations

from collections.abc import Iterable

from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.change_range import ChangeRead
from dbt.adapters.lakehouse.statements import Statements


class ChangeReadQueries:
    def __init__(self, statements: Statements) -> None:
        self._sql = statements.sql

    def relation(self, read: ChangeRead) -> str:
        """What the model's FROM clause reads: the range's scratch table once
        the materialization staged it, else the upstream itself."""
        if read.staged_as is not None:
            return self._sql("all_rows", relation=read.staged_as)
        return self.source(read)

    def source(self, read: ChangeRead) -> str:
        """The relation that reads the range from the upstream itself (its format's)."""
        return table_formats.of_read(read.upstream_format).change_source(read, self._sql)

    def signed_changes(self, read: ChangeRead, columns: Iterable[str], macro: str) -> str:
        """The changes of `read` as signed rows of `columns`: each after image
        with `_sign` +1, each before image with -1. Summing `_sign * measure`
        by group gives what each group gained: an update moves its old value
        out and its new one in, a delete takes its value out, a record that
        changed group leaves its old group. A full read is the snapshot, all +1."""
        names = list(columns)
        # A cdc read carries the upstream's column types (planning described
        # it), so no second look is needed.
        types = {name.lower(): data_type for name, data_type in read.columns}
        missing = [n for n in names if n.lower() not in types]
        if missing:
            raise CompilationError(
                f"{macro}: {read.upstream} has no column(s) {', '.join(missing)}."
            )
        if read.begin is None:
            table = table_formats.of_read(read.upstream_format).as_of(read, self._sql)
            return self._sql("signed_snapshot", table=table, columns=names)
        # The images carry each column as the upstream spells it.
        spelled = {name.lower(): name for name, _ in read.columns}
        fields = [(n, spelled[n.lower()], types[n.lower()]) for n in names]
        return self._sql("signed_images", relation=self.relation(read), columns=fields)

    def changed_keys(self, read: ChangeRead, keys: Iterable[str]) -> str:
        """Distinct values of `keys` touched by the changes of `read`: from both
        the before and the after image, so a deleted record or one that moved
        to another group marks its old group too. A full read takes the keys
        of the snapshot."""
        names = list(keys)
        signed = self.signed_changes(read, names, "lake_changed_keys")
        return self._sql("distinct_keys", signed=signed, keys=names)
