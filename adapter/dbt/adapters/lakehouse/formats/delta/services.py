"""Compaction, cleaning and rollback of a Delta table, under the configs Hudi's
and Iceberg's take (formats/merge_commits.py has the triggers they share).

A compaction of a merge-on-read (deletion vector) table is Delta's `OPTIMIZE`
(small files bin-packed) then `REORG TABLE ... APPLY (PURGE)` (files with
deletion vectors rewritten with the deletes applied), due when the model's
`compaction` trigger is met counting the versions written since the last of
either, or the seconds since it. Cleaning is `VACUUM` keeping the files the
latest `retain` versions read (unset: 10), or those of the last `retain`
hours: Delta keeps files by age, so the count becomes the age of the oldest
version kept. A rollback is `RESTORE` to a version. Whether each is due is
read off the table's history, so a test asserts on versions, not on time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats.delta.history import NO_DATA_COMMITS
from dbt.adapters.lakehouse.formats.delta.table_config import DeltaTableConfig
from dbt.adapters.lakehouse.formats.merge_commits import (
    DEFAULT_RETAIN,
    Snapshot,
    compaction_due,
    naive_time,
)
from dbt.adapters.lakehouse.formats.table_format import TableServices
from dbt.adapters.lakehouse.statements import Statements

# The operations of Delta's history that rewrite files without changing rows.
REWRITES = frozenset({"OPTIMIZE", "REORG"})
# VACUUM measures its retention back from its own clock, read a moment after
# ours: a retention this much longer keeps every file a kept version reads
# (a file removed just before the oldest kept version may wait for the next
# cleaning).
CLOCK_MARGIN_SECONDS = 10


def vacuum_hours(lake: DeltaTableConfig, versions: list[Snapshot], now: datetime) -> float | None:
    """The retention VACUUM runs with (hours, rounded up to a thousandth), or
    None when no version would lose its files."""
    cleaning = lake.cleaning
    if cleaning.policy == "keep_latest_by_hours":
        hours = float(cleaning.retain or 0)
        expired = [
            v for v in versions[:-1] if (now - v.committed_at).total_seconds() > hours * 3600
        ]
        return hours if expired else None
    retain = cleaning.retain or DEFAULT_RETAIN
    if len(versions) <= retain:
        return None
    # Files removed before the oldest version kept serve only versions not kept.
    oldest_kept = versions[-retain].committed_at
    seconds = (now - oldest_kept).total_seconds() + CLOCK_MARGIN_SECONDS
    return math.ceil(seconds / 3.6) / 1000


class DeltaServices(TableServices):
    """The statements of the services due on one Delta table, after a write or on demand."""

    def __init__(self, rows: Callable[[str], list[Any]], statements: Statements) -> None:
        self._rows = rows
        self._statements = statements

    def versions(self, table: str) -> list[Snapshot]:
        """(committed_at, operation) of each version, oldest first."""
        rows = self._rows(self._statements.sql("delta_history", table=table))
        found = [
            (int(row["version"]), Snapshot(naive_time(row["timestamp"]), str(row["operation"])))
            for row in rows
            if str(row["operation"]) not in NO_DATA_COMMITS
        ]
        return [snapshot for _, snapshot in sorted(found, key=lambda pair: pair[0])]

    def now(self) -> datetime:
        return naive_time(self._rows(self._statements.sql("session_now"))[0][0])

    def after_write(self, lake: DeltaTableConfig, database: str | None, table: str) -> list[str]:
        """What the write's own run does next: the compaction when inline and
        due, the cleaning when automatic and something would go. (A Delta
        table is the session catalog's: `database` names none.)"""
        now = self.now()
        versions = self.versions(table)
        due = lake.compaction.mode == "inline" and compaction_due(lake, versions, now, REWRITES)
        statements = self.compact(lake, table) if due else []
        if lake.cleaning.automatic:
            statements += self.clean(lake, table, versions, now)
        return statements

    def on_demand(
        self,
        lake: DeltaTableConfig,
        database: str | None,
        table: str,
        service: str,
        version: str | None,
    ) -> list[str]:
        """What lake_compact, lake_compact_scheduled, lake_clean and lake_rollback run."""
        if service == "compact":
            return self.compact(lake, table)
        if service == "scheduled":
            due = lake.compaction.mode == "schedule" and compaction_due(
                lake, self.versions(table), self.now(), REWRITES
            )
            return self.compact(lake, table) if due else []
        if service == "clean":
            return self.clean(lake, table)
        if not str(version or "").isdigit():
            raise DbtRuntimeError(
                f"lake_rollback on the Delta table {table} takes a version "
                f"(describe history {table}), not {version!r}."
            )
        return [self._statements.sql("delta_restore", table=table, version=version)]

    def compact(self, lake: DeltaTableConfig, table: str) -> list[str]:
        statements = [self._statements.sql("delta_optimize", table=table)]
        if lake.table_type == "mor":
            statements.append(self._statements.sql("delta_purge", table=table))
        return statements

    def clean(
        self,
        lake: DeltaTableConfig,
        table: str,
        versions: list[Snapshot] | None = None,
        now: datetime | None = None,
    ) -> list[str]:
        now = now or self.now()
        hours = vacuum_hours(lake, versions if versions is not None else self.versions(table), now)
        if hours is None:
            return []
        return [self._statements.sql("delta_vacuum", table=table, hours=f"{hours:.3f}")]
