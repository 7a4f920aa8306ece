"""Compaction and cleaning of an Iceberg table, under the configs Hudi's take.

Iceberg has no table services of its own that run on a trigger: here a
compaction is Iceberg's rewrite_data_files (data files with delete files
rewritten with the deletes applied, small files bin-packed) followed by
rewrite_position_delete_files, due when the model's `compaction` trigger is
met counting the snapshots written since the last rewrite (a `replace`
snapshot) or the seconds since it; cleaning is expire_snapshots keeping the
latest `retain` snapshots, or those of the last `retain` hours. Whether each is
due is read off the table's snapshots, so a test asserts on them, not on time.
Times are Spark's (naive, in the session's zone): the snapshots' commit times,
Spark's current_timestamp() as "now", and the literal expire_snapshots gets.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats import merge_commits
from dbt.adapters.lakehouse.formats.iceberg.change_ranges import CATALOG
from dbt.adapters.lakehouse.formats.iceberg.table_config import IcebergTableConfig
from dbt.adapters.lakehouse.formats.merge_commits import (
    DEFAULT_RETAIN,
    Snapshot,
    naive_time,
    parse_snapshots,
)
from dbt.adapters.lakehouse.formats.table_format import TableServices
from dbt.adapters.lakehouse.statements import Statements

# Iceberg's operation of a snapshot that rewrote files without changing rows.
REWRITE = "replace"


def compaction_due(lake: IcebergTableConfig, snapshots: list[Snapshot], now: datetime) -> bool:
    """Whether the model's compaction trigger is met, counting the snapshots
    since the last rewrite (a `replace` snapshot)."""
    return merge_commits.compaction_due(lake, snapshots, now, frozenset({REWRITE}))


def expire_before(
    lake: IcebergTableConfig, snapshots: list[Snapshot], now: datetime
) -> tuple[datetime, int] | None:
    """(older_than, retain_last) for expire_snapshots, or None when nothing would expire."""
    cleaning = lake.cleaning
    if cleaning.policy == "keep_latest_by_hours":
        older_than = now - timedelta(hours=cleaning.retain or 0)
        expired = [s for s in snapshots[:-1] if s.committed_at < older_than]
        return (older_than, 1) if expired else None
    retain = cleaning.retain or DEFAULT_RETAIN
    return (now, retain) if len(snapshots) > retain else None


class IcebergServices(TableServices):
    """The statements of the services due on one table, after a write or on
    demand; on Iceberg's catalog, or the one a model's `database` names
    (whose `system` has the procedures)."""

    def __init__(self, rows: Callable[[str], list[Any]], statements: Statements) -> None:
        self._rows = rows
        self._statements = statements

    def snapshots(self, table: str) -> list[Snapshot]:
        return parse_snapshots(self._rows(self._statements.sql("iceberg_snapshots", table=table)))

    def now(self) -> datetime:
        return naive_time(self._rows(self._statements.sql("session_now"))[0][0])

    def after_write(self, lake: IcebergTableConfig, database: str | None, table: str) -> list[str]:
        """What the write's own run does next: the compaction when inline and
        due, the cleaning when automatic and something would expire."""
        catalog = database or CATALOG
        now = self.now()
        snapshots = self.snapshots(f"{catalog}.{table}")
        due = lake.compaction.mode == "inline" and compaction_due(lake, snapshots, now)
        statements = self.compact(catalog, table) if due else []
        if lake.cleaning.automatic:
            statements += self.clean(lake, catalog, table, snapshots, now)
        return statements

    def on_demand(
        self,
        lake: IcebergTableConfig,
        database: str | None,
        table: str,
        service: str,
        snapshot: str | None,
    ) -> list[str]:
        """What lake_compact, lake_clean and lake_rollback run on an Iceberg model."""
        catalog = database or CATALOG
        if service == "compact":
            return self.compact(catalog, table)
        if service == "scheduled":  # lake_compact_scheduled: a schedule-mode model's due compaction
            snapshots = self.snapshots(f"{catalog}.{table}")
            due = lake.compaction.mode == "schedule" and compaction_due(lake, snapshots, self.now())
            return self.compact(catalog, table) if due else []
        if service == "clean":
            return self.clean(lake, catalog, table)
        if not str(snapshot or "").isdigit():
            raise DbtRuntimeError(
                f"lake_rollback on the Iceberg table {catalog}.{table} takes a snapshot id "
                f"(select snapshot_id from {catalog}.{table}.snapshots), not {snapshot!r}."
            )
        return [
            self._statements.sql(
                "iceberg_rollback", catalog=catalog, table=table, snapshot_id=snapshot
            )
        ]

    def compact(self, catalog: str, table: str) -> list[str]:
        return [
            self._statements.sql("iceberg_rewrite_data_files", catalog=catalog, table=table),
            self._statements.sql("iceberg_rewrite_position_deletes", catalog=catalog, table=table),
        ]

    def clean(
        self,
        lake: IcebergTableConfig,
        catalog: str,
        table: str,
        snapshots: list[Snapshot] | None = None,
        now: datetime | None = None,
    ) -> list[str]:
        now = now or self.now()
        found = snapshots if snapshots is not None else self.snapshots(f"{catalog}.{table}")
        expire = expire_before(lake, found, now)
        if expire is None:
            return []
        older_than, retain_last = expire
        return [
            self._statements.sql(
                "iceberg_expire_snapshots",
                catalog=catalog,
                table=table,
                older_than=older_than.strftime("%Y-%m-%d %H:%M:%S.%f"),
                retain_last=retain_last,
            )
        ]
