"""Which tables this invocation wrote, and since which commit: what data tests
scoped to the changes (test_scope.py) read.

Before a model writes, its table's latest commit is noted; when a test of it
first asks, the partitions the later commits wrote are read once from their
commit metadata (the tests of a model run after its write).
"""

from __future__ import annotations

import dataclasses

from dbt.adapters.lakehouse import test_scope
from dbt.adapters.lakehouse.lake_metadata import LakeMetadata

# Commits looked at after the noted one: with more, every partition stays in.
COMMIT_SCAN = 20


class WrittenTables:
    def __init__(self, metadata: LakeMetadata) -> None:
        self._metadata = metadata
        # Per table (schema.table, lower case): its latest commit before this
        # invocation wrote it; None when the write created it.
        self._since: dict[str, test_scope.Since | None] = {}
        self._partitions_read: set[str] = set()

    def note_start(self, table: str, created: bool) -> None:
        """Before a write: remember the table's latest commit (its instant, and
        when it completed); this write's rows come from the commits after it."""
        if table in self._since:
            return
        latest = None if created else self._metadata.latest_commit(table)
        self._since[table] = test_scope.Since(latest.instant, latest.completed) if latest else None

    def written_after(self, table: str) -> test_scope.Since | None:
        """The table's commit before this invocation wrote it (None: not
        written, or created by it), with the partitions its later commits wrote."""
        since = self._since.get(table)
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
            written = test_scope.partitions_predicate(paths)
            if written:
                since = dataclasses.replace(
                    since, partition_columns=written[0], partitions=written[1]
                )
        elif commits and not later:  # the model wrote nothing: no row to read
            since = dataclasses.replace(since, partitions="false")
        self._since[table] = since
        self._partitions_read.add(table)
        return since
