"""Change reads of a Hudi upstream (formats/table_format.py's ChangeHistory,
change_source): a range is planned against the table's active timeline
(change_ranges.py) and read with Hudi's incremental and CDC queries, the
table-valued function `hudi_table_changes` (macros/statements/change_reads.sql).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.hudi import history
from dbt.adapters.lakehouse.formats.hudi.change_ranges import Timeline, plan_read
from dbt.adapters.lakehouse.formats.table_format import Ask, ChangeHistory, Lake, Sql
from dbt.adapters.lakehouse.relation_configs.base import LiveTable
from dbt.adapters.lakehouse.relation_configs.table_layout import (
    HOODIE_KEYS,
    TableLayout,
    is_merge_on_read,
)

# Instants of an upstream: its whole active timeline (Hudi keeps at most
# hoodie.keep.max.commits = 30 by default).
TIMELINE_SCAN = 1000
# Hudi's merge mode that lets the latest write win, whatever its ordering value.
COMMIT_TIME_ORDERING = "COMMIT_TIME_ORDERING"


def returns_lost_writes(properties: Mapping[str, str]) -> bool:
    """Whether a Hudi table's incremental (latest_state) query can return a
    write that lost to the record already stored: on a merge-on-read table
    whose records merge by an ordering field (or by a payload or merge mode
    other than the latest commit winning), Hudi 1.2 merges a range's log
    records without the file slice written before the range (see
    change_source). From the table's catalog properties, as
    TableLayout.from_table reads them; a copy-on-write table merges as it
    writes, and its reads are right."""
    if not is_merge_on_read(properties):
        return False
    layout = TableLayout.from_table(LiveTable(properties))
    merge_mode = properties.get("recordMergeMode") or properties.get("hoodie.record.merge.mode")
    if merge_mode:
        return merge_mode.upper() != COMMIT_TIME_ORDERING
    ordering = layout.precombine_key or any(
        properties.get(key) for key, config in HOODIE_KEYS.items() if config == "precombine_key"
    )
    payload = properties.get("payloadClass") or properties.get(
        "hoodie.datasource.write.payload.class"
    )
    return bool(ordering or payload)


def timeline(ask: Ask, table: str, for_cdc: bool) -> Timeline:
    """What planning a read needs of a Hudi table's timeline (a cdc read:
    and of its cleans)."""
    commits = [
        (str(c["commit_time"]), str(c["state_transition_time"]), str(c["action"]))
        for c in history.completed_commits(ask, table, TIMELINE_SCAN)
    ]
    return Timeline.from_commits(commits, history.cleaned_before(ask, table) if for_cdc else None)


def prepared(
    read: ChangeRead, properties: Mapping[str, str], partition_columns: list[str]
) -> ChangeRead:
    """An incremental latest_state `read` of a table with these catalog
    properties: checked against the current records where the query can
    return lost writes, and costly to read on merge-on-read (its log files
    are merged at each read)."""
    if returns_lost_writes(properties):
        read = dataclasses.replace(
            read, check_current=True, partition_columns=tuple(partition_columns)
        )
    return dataclasses.replace(read, costly_to_read=is_merge_on_read(properties))


class HudiChanges(ChangeHistory):
    def __init__(self, timeline: Timeline) -> None:
        self._timeline = timeline

    def later(self, *positions: str | None) -> str | None:
        return change_range.latest_position(*positions)

    def plan(self, request: ReadRequest, consumed: str | None) -> ChangeRead:
        # A full cdc read renders the snapshot as images of these columns.
        columns = request.columns() if request.mode == "cdc" else []
        read = plan_read(
            request.upstream,
            request.mode,
            consumed,
            self._timeline,
            request.on_gap,
            request.model,
            columns,
        )
        return dataclasses.replace(read, upstream_format="hudi")

    def prepare(self, lake: Lake, read: ChangeRead, name: str) -> ChangeRead:
        if read.mode != "latest_state" or not read.is_incremental:
            return read
        properties = lake.table_properties(read.upstream)
        # (The partitions limit the check of lost writes: asked only for that.)
        checked = returns_lost_writes(properties)
        partition_columns = lake.table_settings(read.upstream)[1] if checked else []
        return prepared(read, properties, partition_columns)


def change_source(read: ChangeRead, sql: Sql) -> str:
    """The relation that reads a planned range of a Hudi upstream."""
    if read.end is None:
        return change_range.no_rows(read, sql)
    if read.begin is None and read.mode == "cdc":
        # A full cdc read: every current record as an insert. Reading the
        # CDC log from the start instead would need every file slice ever
        # written, which the cleaner removes, and replays history only to
        # arrive here.
        if not read.columns:
            raise ValueError(f"a full cdc read of {read.upstream} needs its columns")
        return sql("snapshot_as_cdc_inserts", table=read.upstream, columns=list(read.columns))
    begin = "earliest" if read.begin is None else read.begin
    changes = sql("table_changes", table=read.upstream, mode=read.mode, begin=begin, end=read.end)
    if read.is_empty:
        return sql("no_rows", relation=changes)
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
        return sql(
            "current_records",
            table=read.upstream,
            changes=changes,
            partition_columns=list(read.partition_columns),
        )
    return sql("all_rows", relation=changes)
