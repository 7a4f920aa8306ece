"""Why a merge-on-read table with CDC never takes a write while a compaction is pending.

A compaction plan fixes the file slices it merges; a delta commit written
after the plan appends its log file to the new slice the compaction will
create, whose base file does not exist yet. When the compaction then
completes after that delta commit, Hudi 1.2's CDC query cannot find the file
slice before the delta commit and fails on every range that holds it (see
change_ranges.written_on_pending_compactions): each consumer reading
with lake_signed_changes, lake_changed_keys or lake_changes(mode='cdc') is
wedged until it is rebuilt in full.

Two ways lead there. A run killed during an inline compaction leaves the
plan pending, and Hudi runs it only after the next write has committed. A
table with `compaction: {mode: schedule}` takes writes while its plan waits
for `lake_compact_scheduled`; a consumer that read those writes before the
plan ran is fine, one that had not (its run failed, or it was not selected)
is wedged. So before writing such a table the adapter runs the pending plans
(Hudi rolls back one a killed process left in flight and runs it again): the
write then lands on the compacted slice. For the crash this finishes what the
dead run started; for schedule mode the write pays for the compaction only
when the plan was not run between builds (continuous mode runs it there).

Only tables with CDC on: the other reads (latest_state incremental queries,
snapshots) read such ranges correctly, so their compaction keeps its schedule.
"""

from __future__ import annotations

from collections.abc import Mapping

from dbt.adapters.lakehouse.relation_configs.table_layout import is_merge_on_read

CDC_ENABLED = "hoodie.table.cdc.enabled"


def compacts_before_writing(properties: Mapping[str, str]) -> bool:
    """Whether a write of the table with these catalog properties first runs
    the table's pending compaction plans."""
    return is_merge_on_read(properties) and str(properties.get(CDC_ENABLED, "")).lower() == "true"
