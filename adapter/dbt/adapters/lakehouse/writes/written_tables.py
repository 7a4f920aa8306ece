"""Which tables this invocation wrote, and since which commit: what data tests
scoped to the changes read (data_tests/scope.py says how a test is scoped; this
module decides whether it is, from what was written).

Before a model writes, its table's latest commit is noted; when a test of it
first asks, the partitions the later commits wrote are read once from their
commit metadata (the tests of a model run after its write).

A `dbt test` after a `dbt run` writes nothing itself: it is told each table's
latest commit before that run (the var `lakehouse_changed_since`, a mapping of
schema.table to instant), and its tests read the later commits as if it had
written them. An orchestrator that publishes a batch before checking it (the
project's continuous mode) passes the instants it read before the run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dbt.adapters.lakehouse.data_tests import scope as data_test_scope
from dbt.adapters.lakehouse.data_tests.queries import DataTestQueries
from dbt.adapters.lakehouse.formats.hudi.change_reads import returns_lost_writes
from dbt.adapters.lakehouse.formats.hudi.history import is_not_hudi
from dbt.adapters.lakehouse.lake.metadata import LakeMetadata

# Commits looked at after the noted one: with more, every partition stays in.
COMMIT_SCAN = 20


class WrittenTables:
    def __init__(
        self,
        metadata: LakeMetadata,
        queries: DataTestQueries,
        earlier: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        self._metadata = metadata
        self._queries = queries
        # Tables an earlier invocation wrote, with their latest instant before
        # it (lakehouse_changed_since); read when a test first asks.
        self._earlier = earlier
        # Per table (schema.table, lower case): its latest commit before this
        # invocation wrote it; None when the write created it.
        self._since: dict[str, data_test_scope.Since | None] = {}
        self._partitions_read: set[str] = set()

    def note_start(self, table: str, created: bool) -> None:
        """Before a write: remember the table's latest commit (its instant, and
        when it completed); this write's rows come from the commits after it."""
        if table in self._since:
            return
        latest = None if created else self._metadata.latest_commit_if_hudi(table)
        self._since[table] = (
            data_test_scope.Since(latest.instant, latest.completed) if latest else None
        )

    def written_after(self, table: str) -> data_test_scope.Since | None:
        """The table's commit before this invocation wrote it (None: not
        written, or created by it), with the partitions its later commits wrote."""
        if table not in self._since:
            # Not written here: an earlier run's write, or nothing (not noted,
            # so that a write later in this invocation is still noted).
            earlier = self._since_earlier_run(table)
            if earlier is None:
                return None
            self._since[table] = earlier
        since = self._since[table]
        if since is None or table in self._partitions_read:
            return since
        commits = [
            str(c["commit_time"]) for c in self._metadata.completed_commits(table, COMMIT_SCAN)
        ]
        later = [instant for instant in commits if instant > since.instant]
        # Not all of them listed (COMMIT_SCAN writes since): leave every partition in.
        if later and len(later) < len(commits):
            paths = [
                path
                for instant in later
                for path in self._metadata.commit_partitions(table, instant)
            ]
            written = data_test_scope.partition_values(paths)
            if written:
                since = dataclasses.replace(
                    since, partition_columns=written[0], partitions=written[1]
                )
        elif commits and not later:  # the model wrote nothing: no row to read
            since = dataclasses.replace(since, partitions=())
        if later and returns_lost_writes(self._metadata.table_properties(table)):
            since = dataclasses.replace(since, incremental_exact=False)
        self._since[table] = since
        self._partitions_read.add(table)
        return since

    def _since_earlier_run(self, table: str) -> data_test_scope.Since | None:
        """The table's Since from lakehouse_changed_since, or None (checked
        whole) when it is not listed or not a Hudi table."""
        listed = {str(k).lower(): str(v) for k, v in (self._earlier() or {}).items()}
        instant = listed.get(table)
        if not instant:
            return None
        try:
            commits = self._metadata.completed_commits(table, COMMIT_SCAN)
        except Exception as exc:
            if is_not_hudi(exc):
                return None
            raise
        # Listed, but that run did not write it: checked whole, as a table
        # this invocation did not write.
        if not any(str(c["commit_time"]) > instant for c in commits):
            return None
        # As latest_commit reads it: an older instant may have completed
        # later. None listed at or before it (archived since, or the table
        # was rebuilt): its own instant, a begin that reads more, never less.
        completed = [
            str(c["state_transition_time"]) for c in commits if str(c["commit_time"]) <= instant
        ]
        return data_test_scope.Since(instant, max(completed, default=instant))

    # --- what a data test reads ------------------------------------------------

    def scoped_relation(
        self,
        relation: str,
        test_node: Mapping[str, Any],
        where: str,
        scope_mode: str,
        tested: Mapping[str, Any] | None,
        nodes: Mapping[str, Any],
        relation_of: Callable[[Mapping[str, Any]], str],
    ) -> str | None:
        """The subquery that scopes a data test to what this invocation wrote
        in `relation` (schema.table), or None to check the whole of it.
        `tested` (the model the test is attached to) and `nodes` (the graph's)
        let a model that declares lakehouse_rows_from be scoped by its
        upstream's writes; `relation_of` names a node's relation."""
        if scope_mode == "full":  # the default: no look at the node
            return None
        if data_test_scope.check_mode(scope_mode, test_node.get("name", "")) != "changed":
            return None
        config = test_node.get("config") or {}
        kind = data_test_scope.test_kind(test_node.get("test_metadata"), config.get("meta"))
        if kind is None:
            return None
        since = self.written_after(relation.lower())
        if since:
            return self._queries.scoped_relation(relation, kind, since, where)
        follows = data_test_scope.rows_from(tested, nodes) if tested else None
        if follows is None:
            return None
        upstream, key, partition_by = follows
        upstream_relation = relation_of(upstream)
        since = self.written_after(upstream_relation.lower())
        if not since:
            return None
        return self._queries.rows_from_relation(
            relation, upstream_relation, key, since, where, partition_by
        )

    def changed_values_sql(
        self, relations: Sequence[str | None], columns: list[str], scope_mode: str
    ) -> str | None:
        """A query of the distinct values of `columns` among the rows this
        invocation wrote to any of `relations` (schema.table; None for a
        filtered query rather than a table); None when one of them is to be
        checked whole (not written by this invocation, created by it, or a query)."""
        if (
            scope_mode == "full"
            or data_test_scope.check_mode(scope_mode, "changed_values_sql") != "changed"
        ):
            return None
        written = []
        for relation in relations:
            if relation is None:
                return None
            since = self.written_after(relation.lower())
            if not since:
                return None
            written.append((relation, since))
        return self._queries.changed_values(written, columns)
