"""Planning a run's change reads against the lake, and recording how far they read.

The adapter holds one planner per invocation. While a model compiles, each
`lake_changes()` (or sibling) call plans one range here: the model's recorded
position, the upstream's timeline, the gap policy (hudi_ranges.plan_read). The
materialization then asks for the ranges to stage and for the settings that
put the consumed positions into the model's own commit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.change_range import ChangeRead
from dbt.adapters.lakehouse.formats.delta import change_ranges as delta_ranges
from dbt.adapters.lakehouse.formats.delta.history import History
from dbt.adapters.lakehouse.formats.delta.table_config import CHANGE_DATA_FEED
from dbt.adapters.lakehouse.formats.hudi import change_ranges as hudi_ranges
from dbt.adapters.lakehouse.formats.hudi.change_ranges import Timeline
from dbt.adapters.lakehouse.formats.hudi.history import is_not_hudi
from dbt.adapters.lakehouse.formats.iceberg import change_ranges as iceberg_ranges
from dbt.adapters.lakehouse.formats.iceberg import format as iceberg_format
from dbt.adapters.lakehouse.formats.merge_table import KEY_PROPERTY
from dbt.adapters.lakehouse.lake.metadata import LakeMetadata, in_own_catalog
from dbt.adapters.lakehouse.relation_configs.base import LiveTable
from dbt.adapters.lakehouse.relation_configs.table_layout import (
    HOODIE_KEYS,
    TableLayout,
    is_merge_on_read,
)

# Instants of an upstream: its whole active timeline (Hudi keeps at most
# hoodie.keep.max.commits = 30 by default).
TIMELINE_SCAN = 1000
# Hudi copies write options with the prefix into the commit's extra metadata.
COMMIT_META_PREFIX_SETTING = "hoodie.datasource.write.commitmeta.key.prefix"


# Hudi's merge mode that lets the latest write win, whatever its ordering value.
COMMIT_TIME_ORDERING = "COMMIT_TIME_ORDERING"


def returns_lost_writes(properties: Mapping[str, str]) -> bool:
    """Whether a Hudi table's incremental (latest_state) query can return a
    write that lost to the record already stored: on a merge-on-read table
    whose records merge by an ordering field (or by a payload or merge mode
    other than the latest commit winning), Hudi 1.2 merges a range's log
    records without the file slice written before the range (see
    queries.ChangeReadQueries.source). From the table's catalog properties, as
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


class ChangeReadPlanner:
    def __init__(
        self,
        metadata: LakeMetadata,
        columns_of: Callable[[Any], list[tuple[str, str]]],
        scratch_relation: Callable[[Any, str], Any],
    ) -> None:
        self._metadata = metadata
        # (name, type) of a relation's columns, for full cdc reads.
        self._columns_of = columns_of
        # Where a model stages a read (the adapter's scratch_relation).
        self._scratch_relation = scratch_relation
        # Ranges each model planned at compile time, by (upstream, mode), for
        # its materialization to stage, log and record with its write.
        self._reads: dict[str, dict[tuple[str, str], ChangeRead]] = {}

    def plan(
        self,
        model: dict[str, Any],
        this: Any,
        upstream: Any,
        mode: str,
        incremental: bool,
        on_gap: str,
        stage: bool,
        signed: bool,
    ) -> ChangeRead:
        """What `model` reads of `upstream` in this run. `stage`: a run will
        materialize the model, so an incremental range that is costly to read
        (_worth_staging) is copied once into a scratch table that the model's
        query then reads. `signed`: the reads
        of lake_signed_changes, added to stored rows, never fall back to a
        full read."""
        name = model["name"]
        if signed and model.get("config", {}).get("delete_condition"):
            raise CompilationError(
                f"Model '{name}': lake_signed_changes adds deltas to the stored rows, which a "
                "delete_condition's second commit could make a rerun add twice. Remove "
                "delete_condition (groups whose changes cancel out keep a row of zeros), or "
                "recompute the touched groups with lake_changed_keys instead."
            )
        upstream_name = _qualified(upstream)
        this_name = _qualified(this) if this is not None else None
        model_format = str(model.get("config", {}).get("file_format") or "hudi").lower()
        position = this if incremental else None
        # (Hudi's tables first: most upstreams are, and they need no describe.)
        timeline = (
            None if in_own_catalog(upstream_name) else self._hudi_timeline(upstream_name, mode)
        )
        upstream_format, location = (
            ("hudi", "")
            if timeline is not None
            else self._metadata.provider_and_location(upstream_name)
        )
        if upstream_format == "iceberg":
            ancestry = self._metadata.iceberg_ancestry(upstream_name)
            consumed = self._consumed_position(
                position, upstream_name, ancestry.later, model_format
            )
            read = iceberg_ranges.plan_read(
                upstream_name,
                mode,
                consumed,
                ancestry,
                "fail" if signed else on_gap,
                name,
                self._columns_of(upstream),
                self._upstream_key(upstream_name),
            )
        elif upstream_format == "delta":
            history = self._delta_history(upstream_name, name)
            consumed = self._consumed_position(position, upstream_name, history.later, model_format)
            read = self._plan_delta(
                name, upstream, location, mode, consumed, history, "fail" if signed else on_gap
            )
        elif timeline is not None:
            consumed = self._consumed_position(
                position, upstream_name, change_range.latest_position, model_format
            )
            # A full cdc read renders the snapshot as images of these columns.
            columns = self._columns_of(upstream) if mode == "cdc" else []
            read = hudi_ranges.plan_read(
                upstream_name,
                mode,
                consumed,
                timeline,
                "fail" if signed else on_gap,
                name,
                columns,
            )
        else:
            raise CompilationError(
                f"Model '{name}' reads the changes of {upstream_name}, a "
                f"{upstream_format or 'non-lake'} table: change reads read Hudi, Iceberg and "
                "Delta tables. Read it whole with ref(), or write it as a lake table."
            )
        if incremental and consumed is None:
            note = f"Model '{name}' has no recorded position for {upstream_name}"
            # (An empty table, e.g. first built while the upstream had no
            # commit, has nothing a full read could count twice.)
            if signed and this_name and self._metadata.has_rows(this_name):
                raise CompilationError(
                    f"{note}, and lake_signed_changes cannot read it in full on an incremental run "
                    f"(the deltas would be added to rows that already count them). "
                    f"Rebuild with `dbt run --full-refresh --select {name}`."
                )
            read = dataclasses.replace(read, note=f"{note}: reading it in full.")
        # (Read once: whether the range may hold lost writes, and whether to stage it.)
        properties = (
            self._metadata.table_properties(upstream_name)
            if mode == "latest_state" and read.is_incremental and read.upstream_format == "hudi"
            else {}
        )
        if properties and returns_lost_writes(properties):
            _, partition_columns, _ = self._metadata.table_settings(upstream_name)
            read = dataclasses.replace(
                read, check_current=True, partition_columns=tuple(partition_columns)
            )
        reads = self._reads.setdefault(model["unique_id"], {})
        slot = (upstream_name, mode)
        number = list(reads).index(slot) + 1 if slot in reads else len(reads) + 1
        if read.upstream_format == "iceberg" and read.is_incremental:
            read = self._open_changelog(read, f"{name}_{number}")
        staged = stage and read.is_incremental and this is not None
        if staged and self._worth_staging(read, properties):
            scratch = self._scratch_relation(this, f"read_{number}")
            read = dataclasses.replace(read, staged_as=str(scratch))
        reads[slot] = read
        return read

    @staticmethod
    def _worth_staging(read: ChangeRead, properties: Mapping[str, str]) -> bool:
        """Whether a range is copied into a scratch table before the model's
        query, rather than read there from the upstream. Copied: a cdc read
        (its images are read twice, once each; on merge-on-read Hudi merges
        file slices to find them), a read checked against the current records
        (read twice), and any range of a merge-on-read upstream (merged at
        each read). A copy-on-write upstream's range is its commits' files:
        read where the model uses it, Spark reads only the columns and rows it
        needs, where a copy wrote every column of every row and read them back
        (on a 100k-row batch of the billing feed, most of a second for each
        model that reads it). `properties`: the upstream's, for a latest_state
        read."""
        if read.mode == "cdc" or read.check_current or read.changelog_view:
            return True
        return is_merge_on_read(properties)

    def reads(self, model: dict[str, Any]) -> list[ChangeRead]:
        return list(self._reads.get(model["unique_id"], {}).values())

    def consumed_positions(self, model: dict[str, Any]) -> dict[str, str]:
        """How far the model's reads of this run read, by position key."""
        return {
            change_range.position_key(read.upstream): read.end
            for read in self.reads(model)
            if read.end is not None
        }

    def position_settings(self, model: dict[str, Any], extra: dict[str, str]) -> dict[str, str]:
        """Write settings that put the consumed positions (and `extra`
        commit metadata) into the model's next Hudi commit."""
        settings = self.consumed_positions(model)
        settings.update(extra)
        if not settings:
            return {}
        return {COMMIT_META_PREFIX_SETTING: change_range.COMMIT_META_PREFIX, **settings}

    def skipped_write_positions(self, model: dict[str, Any]) -> dict[str, str]:
        """Table properties that record how far a run read when it wrote no
        commit (see change_range.SKIPPED_PREFIX)."""
        return {
            change_range.skipped_position_key(read.upstream): read.end
            for read in self.reads(model)
            if read.end is not None
        }

    def _hudi_timeline(self, table: str, mode: str) -> Timeline | None:
        """A Hudi table's timeline; None for a table not Hudi's."""
        try:
            return self._timeline(table, for_cdc=mode == "cdc")
        except Exception as exc:  # Spark's own exception on the embedded session
            if is_not_hudi(exc):
                return None
            raise

    def _timeline(self, table: str, for_cdc: bool) -> Timeline:
        commits = [
            (str(c["commit_time"]), str(c["state_transition_time"]), str(c["action"]))
            for c in self._metadata.completed_commits(table, TIMELINE_SCAN)
        ]
        return Timeline.from_commits(
            commits, self._metadata.cleaned_before(table) if for_cdc else None
        )

    def _open_changelog(self, read: ChangeRead, suffix: str) -> ChangeRead:
        """Create the session's temporary view of Iceberg's changelog of the
        range (create_changelog_view): net changes for latest_state, each
        change with updates paired by the upstream's key for cdc."""
        view = "lakehouse_changes_" + "".join(c if c.isalnum() else "_" for c in suffix)
        # (Iceberg's procedures are its catalog's: the one that keeps a table
        # of the session catalog, or the one a name of three parts names.)
        parts = read.upstream.split(".")
        catalog, table = (
            (parts[0], ".".join(parts[1:]))
            if len(parts) == 3
            else (iceberg_format.CATALOG, read.upstream)
        )
        self._metadata.ask(
            "iceberg_changelog_view",
            catalog=catalog,
            table=table,
            view=view,
            begin=read.begin,
            end=read.end,
            net_changes=read.mode == "latest_state",
            key=list(read.key),
        )
        return dataclasses.replace(read, changelog_view=view)

    def _consumed_position(
        self, this: Any, upstream: str, later: Callable[..., str | None], model_format: str
    ) -> str | None:
        """The upstream position recorded by this table's latest write that
        recorded one, or by a later run that read a range and wrote nothing
        (the later of the two by `later`: the upstream's order); None when
        `this` is None (a first or full-refresh run). Where a table records
        it is its format's (`model_format`: the model's file_format)."""
        if this is None:
            return None
        table = _qualified(this)
        key = change_range.position_key(upstream)
        fmt = table_formats.of_provider(model_format) or table_formats.get(
            table_formats.DEFAULT_FORMAT
        )
        committed = fmt.recorded(self._metadata.ask, table, key)
        skipped = self._metadata.table_properties(table).get(
            change_range.skipped_position_key(upstream)
        )
        return later(committed, skipped)

    def _plan_delta(
        self,
        name: str,
        upstream: Any,
        location: str,
        mode: str,
        consumed: str | None,
        history: History,
        on_gap: str,
    ) -> ChangeRead:
        """The range of a Delta upstream, with its location: a read is by the
        table's path (a version, or the change feed between two)."""
        upstream_name = _qualified(upstream)
        read = delta_ranges.plan_read(
            upstream_name,
            mode,
            consumed,
            history,
            on_gap,
            name,
            self._columns_of(upstream),
            self._upstream_key(upstream_name),
        )
        if not read.is_empty:
            read = dataclasses.replace(read, location=location)
        return read

    def _upstream_key(self, upstream: str) -> list[str]:
        """The unique key an Iceberg or Delta upstream was written with."""
        key = self._metadata.table_properties(upstream).get(KEY_PROPERTY, "")
        return [k for k in key.split(",") if k]

    def _delta_history(self, upstream: str, model: str) -> History:
        """A Delta upstream's versions; an error naming the fix when it keeps no change feed."""
        properties = self._metadata.table_properties(upstream)
        if properties.get(CHANGE_DATA_FEED, "").lower() != "true":
            raise CompilationError(
                f"Model '{model}' reads the changes of {upstream}, a Delta table without a "
                f"change data feed. Build it with dbt-lakehouse (every Delta model keeps one), "
                f"or run `ALTER TABLE {upstream} SET TBLPROPERTIES ({CHANGE_DATA_FEED} = "
                "true)` and rebuild this model with --full-refresh (changes before that are "
                "not recorded)."
            )
        return self._metadata.delta_history(upstream)


def _qualified(relation: Any) -> str:
    """schema.table; catalog.schema.table for a table of another catalog."""
    name = f"{relation.schema}.{relation.identifier}"
    return f"{relation.database}.{name}" if relation.database else name
