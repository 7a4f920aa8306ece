"""Planning a run's change reads against the lake, and recording how far they read.

The adapter holds one planner per invocation. While a model compiles, each
`lake_changes()` (or sibling) call plans one range here: the model's recorded
position, and the upstream's history and gap policy, which are its format's
(TableFormat.change_history). The materialization then asks for the ranges to
stage and for the settings that put the consumed positions into the model's
own commit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.merge_table import KEY_PROPERTY
from dbt.adapters.lakehouse.formats.table_format import ChangeHistory, NotThisFormat
from dbt.adapters.lakehouse.lake.metadata import LakeMetadata, in_own_catalog

# The format writes settings with the prefix into the commit's extra metadata (Hudi's).
COMMIT_META_PREFIX_SETTING = "hoodie.datasource.write.commitmeta.key.prefix"


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
        model_format = str(model.get("config", {}).get("file_format") or "")
        request = ReadRequest(
            upstream_name,
            mode,
            "fail" if signed else on_gap,
            name,
            "",
            columns=lambda: self._columns_of(upstream),
            key=lambda: self._upstream_key(upstream_name),
        )
        history, request = self._history(request)
        position = this if incremental else None
        consumed = self._consumed_position(position, upstream_name, history.later, model_format)
        read = history.plan(request, consumed)
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
        reads = self._reads.setdefault(model["unique_id"], {})
        slot = (upstream_name, mode)
        number = list(reads).index(slot) + 1 if slot in reads else len(reads) + 1
        read = history.prepare(self._metadata, read, f"{name}_{number}")
        staged = stage and read.is_incremental and this is not None
        if staged and self._worth_staging(read):
            scratch = self._scratch_relation(this, f"read_{number}")
            read = dataclasses.replace(read, staged_as=str(scratch))
        reads[slot] = read
        return read

    @staticmethod
    def _worth_staging(read: ChangeRead) -> bool:
        """Whether a range is copied into a scratch table before the model's
        query, rather than read there from the upstream. Copied: a cdc read
        (its images are read twice, once each; on merge-on-read Hudi merges
        file slices to find them), a read checked against the current records
        (read twice), and any range its format says is costly to read (a
        merge-on-read Hudi upstream's, merged at each read; an Iceberg
        changelog, computed at each). A copy-on-write upstream's range is its
        commits' files: read where the model uses it, Spark reads only the
        columns and rows it needs, where a copy wrote every column of every
        row and read them back (on a 100k-row batch of the billing feed, most
        of a second for each model that reads it)."""
        return read.mode == "cdc" or read.check_current or read.costly_to_read

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

    def _history(self, request: ReadRequest) -> tuple[ChangeHistory, ReadRequest]:
        """The upstream's history from its format, and the request with the
        upstream's location when its catalog was asked; an error when change
        reads do not read its format."""
        upstream = request.upstream
        default = table_formats.default()
        # The default format's tables first: most upstreams are, and they need no describe.
        if not in_own_catalog(upstream):
            try:
                found = default.change_history(self._metadata, request)
                if found is not None:
                    return found, request
            except NotThisFormat:
                pass
        provider, location = self._metadata.provider_and_location(upstream)
        request = dataclasses.replace(request, location=location)
        fmt = table_formats.of_provider(provider)
        history = None
        if fmt is not None and fmt is not default:
            history = fmt.change_history(self._metadata, request)
        if history is None:
            readable = [f.title for f in table_formats.with_change_reads()]
            listed = " and ".join(
                [", ".join(readable[:-1]), readable[-1]] if readable[1:] else readable
            )
            raise CompilationError(
                f"Model '{request.model}' reads the changes of {upstream}, a "
                f"{provider or 'non-lake'} table: change reads read {listed} tables. Read it "
                "whole with ref(), or write it as a lake table."
            )
        return history, request

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
        fmt = table_formats.of_provider(model_format) or table_formats.default()
        committed = fmt.recorded(self._metadata.ask, table, key)
        skipped = self._metadata.table_properties(table).get(
            change_range.skipped_position_key(upstream)
        )
        return later(committed, skipped)

    def _upstream_key(self, upstream: str) -> list[str]:
        """The unique key an upstream was written with (a MERGE format's table property)."""
        key = self._metadata.table_properties(upstream).get(KEY_PROPERTY, "")
        return [k for k in key.split(",") if k]


def _qualified(relation: Any) -> str:
    """schema.table; catalog.schema.table for a table of another catalog."""
    name = f"{relation.schema}.{relation.identifier}"
    return f"{relation.database}.{name}" if relation.database else name
