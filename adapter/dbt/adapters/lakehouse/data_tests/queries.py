"""What a data test scoped to what a run wrote reads (data_tests/scope.py says
which tests are scoped, and how): its text from the statement macros of
macros/statements/data_test_scope.sql."""

from __future__ import annotations

from collections.abc import Iterable

from dbt.adapters.lakehouse.data_tests.scope import Since
from dbt.adapters.lakehouse.statements import Statements


class DataTestQueries:
    def __init__(self, statements: Statements) -> None:
        self._sql = statements.sql

    def written_filter(self, since: Since) -> str:
        """The rows later commits wrote, as a filter. It reads every file of
        the partitions the commits wrote (of the whole table when they are not
        known), but can sit in a query that reads the table again: Spark 3.5
        fails (an internal assertion in ColumnarToRowExec, when it looks for
        an exchange to reuse) on some queries that read a table both whole and
        incrementally."""
        return self._sql("written_since", instant=since.instant, partitions=since.partitions)

    def scoped_relation(
        self, relation: str, kind: tuple[str, list[str]], since: Since, where: str = ""
    ) -> str:
        """What a test of this kind must read of `relation` after the writes
        that came after `since`, as a subquery for its FROM clause."""
        scope, keys = kind
        if scope == "rows":
            if not since.incremental_exact:
                return self._tested_rows(relation, [self.written_filter(since)], where)
            # A Hudi incremental read, which opens only the files the later
            # commits wrote.
            changes = self._sql(
                "table_changes", table=relation, mode="latest_state", begin=since.completed
            )
            return self._sql("tested_changes", changes=changes, where=where)
        # The test's own `where` applies to the keys and to the rows read.
        keyed = self._sql(
            "keys_in",
            keys=keys,
            relation=relation,
            conditions=[self.written_filter(since)],
            where=where,
        )
        return self._tested_rows(relation, [keyed], where)

    def rows_from_relation(
        self,
        relation: str,
        upstream: str,
        key: str,
        since: Since,
        where: str = "",
        partition_by: tuple[str, ...] = (),
    ) -> str:
        """The rows of `relation` whose `key` the writes to `upstream` after
        `since` wrote: for both row and key tests, since each row of
        `relation` is the upstream's row of that key. (A filter on the
        upstream, not an incremental read: `relation` reads the upstream
        whole.) With the upstream's `partition_by` columns, `relation`'s rows
        are read from the partitions the writes touched only."""
        conditions = [
            self._sql(
                "keys_in", keys=[key], relation=upstream, conditions=[self.written_filter(since)]
            )
        ]
        if (
            since.partitions is not None
            and partition_by
            and tuple(partition_by) == since.partition_columns
        ):
            conditions.insert(0, self._sql("written_partitions", partitions=since.partitions))
        return self._tested_rows(relation, conditions, where)

    def changed_values(self, written: Iterable[tuple[str, Since]], columns: list[str]) -> str:
        """The distinct values of `columns` among the rows written to each
        (relation, since) pair: the groups a reconciliation must compare. (A
        filter, not an incremental read: the reconciliation reads the same
        tables whole.)"""
        return self._sql(
            "changed_values",
            columns=columns,
            written=[(relation, self.written_filter(since)) for relation, since in written],
        )

    def _tested_rows(self, relation: str, conditions: list[str], where: str) -> str:
        return self._sql("tested_rows", relation=relation, conditions=conditions, where=where)
