"""What a change read reads: the relation a model's FROM clause reads for a
planned range, and the signed rows and changed keys built from CDC images.

Planning (change_range.py, planner.py) decides the range; this module decides which
relation reads it (nothing, the staged scratch table, the snapshot, the
changes checked against the snapshot) and takes its text from the statement
macros of macros/statements/change_reads.sql. Hudi's incremental and CDC
queries are the table-valued function `hudi_table_changes`.
"""

from __future__ import annotations

from collections.abc import Iterable

from dbt_common.exceptions import CompilationError

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
        """The relation that reads the range from the upstream itself."""
        if read.upstream_format == "iceberg":
            return self._iceberg_source(read)
        if read.upstream_format == "delta":
            return self._delta_source(read)
        if read.end is None:
            if read.mode == "cdc":
                return self._sql("no_cdc_rows")
            return self._sql("no_rows", relation=read.upstream)
        if read.begin is None and read.mode == "cdc":
            # A full cdc read: every current record as an insert. Reading the
            # CDC log from the start instead would need every file slice ever
            # written, which the cleaner removes, and replays history only to
            # arrive here.
            if not read.columns:
                raise ValueError(f"a full cdc read of {read.upstream} needs its columns")
            return self._sql(
                "snapshot_as_cdc_inserts", table=read.upstream, columns=list(read.columns)
            )
        changes = self._changes(read)
        if read.is_empty:
            return self._sql("no_rows", relation=changes)
        if read.check_current:
            # Hudi 1.2's incremental query on a merge-on-read table merges
            # only the files the range's commits wrote: a log record that lost
            # to the stored record by the ordering field (a late, older
            # version) comes back as if it had won (apache/hudi#18943). The
            # snapshot merges the whole file slice, so a row of the range is
            # current when the snapshot holds its record with the same commit
            # time; a lost write's record has the stored commit time. A record
            # a later commit changed again is left to the read of that commit.
            # The snapshot's side reads three metadata columns, of the
            # partitions the changes touch only (Spark evaluates the scalar
            # subquery first and prunes the scan): the cost of the check.
            return self._sql(
                "current_records",
                table=read.upstream,
                changes=changes,
                partition_columns=list(read.partition_columns),
            )
        return self._sql("all_rows", relation=changes)

    def _iceberg_source(self, read: ChangeRead) -> str:
        """An Iceberg range (formats/iceberg/change_ranges.py): its changelog view, or the
        snapshot it ends at when read whole."""
        if read.is_empty:
            return self._no_rows(read)
        if read.begin is None:
            if read.mode == "cdc":
                return self._sql(
                    "iceberg_snapshot_as_cdc_inserts",
                    table=read.upstream,
                    snapshot_id=read.end,
                    columns=list(read.columns),
                )
            return self._sql("iceberg_as_of", table=read.upstream, snapshot_id=read.end)
        if read.changelog_view is None:
            raise ValueError(f"the range of {read.upstream} has no changelog view")
        if read.mode == "cdc":
            return self._sql(
                "iceberg_cdc_rows",
                view=read.changelog_view,
                columns=list(read.columns),
                key=list(read.key),
            )
        return self._sql(
            "iceberg_latest_state", view=read.changelog_view, columns=list(read.columns)
        )

    def _delta_source(self, read: ChangeRead) -> str:
        """A Delta range (formats/delta/change_ranges.py): its change feed, or the version it
        ends at when read whole, each by the table's path."""
        if read.is_empty:
            return self._no_rows(read)
        if read.begin is None:
            if read.mode == "cdc":
                return self._sql(
                    "delta_snapshot_as_cdc_inserts",
                    location=self._location(read),
                    version=read.end,
                    columns=list(read.columns),
                )
            return self._sql("delta_as_of", location=self._location(read), version=read.end)
        return self._sql(
            "delta_cdc_rows" if read.mode == "cdc" else "delta_latest_state",
            location=self._location(read),
            first=int(read.begin) + 1,
            last=read.end,
            columns=list(read.columns),
            key=list(read.key),
        )

    def _no_rows(self, read: ChangeRead) -> str:
        """An empty range of an Iceberg or Delta upstream, with the read's columns."""
        if read.mode == "cdc":
            return self._sql("no_cdc_rows")
        return self._sql("no_rows", relation=read.upstream)

    @staticmethod
    def _location(read: ChangeRead) -> str:
        if not read.location:
            raise ValueError(f"a read of the Delta table {read.upstream} needs its location")
        return read.location

    def _changes(self, read: ChangeRead) -> str:
        begin = "earliest" if read.begin is None else read.begin
        return self._sql(
            "table_changes", table=read.upstream, mode=read.mode, begin=begin, end=read.end
        )

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
            table = read.upstream
            if read.upstream_format == "iceberg" and read.end is not None:
                table = self._sql("iceberg_as_of", table=table, snapshot_id=read.end)
            if read.upstream_format == "delta" and read.end is not None:
                table = self._sql("delta_as_of", location=self._location(read), version=read.end)
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
