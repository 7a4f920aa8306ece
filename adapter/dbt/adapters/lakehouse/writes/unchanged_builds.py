"""A `table` model rebuilt only when something it is built from has changed.

With `skip_unchanged: true`, a Hudi table model records in its commit what it
was built from: a digest of its compiled SQL and config, and the latest
completed instant of each upstream it selects from. The next run computes the
same; if they are equal, nothing the model reads has a new commit, so the
rebuild would write the same rows: it is skipped, with no Spark work and no
commit. This is what lets a micro-batch run on data that did not change write
nothing at all.

Only lake tables have a position to compare (a Hudi table's latest instant,
an Iceberg table's current snapshot, a Delta table's latest version): a model that also reads a view, a seed,
an ephemeral model or any other relation is always rebuilt. An Iceberg or
Delta model records what it was built from as its positions are recorded
(formats/iceberg/history.py, formats/delta/history.py). The model's SQL must be a function of its upstreams (no
current_date(), rand(), ...) for a skip to be right: that is why it is opt-in.

An incremental model with `skip_unchanged: true` is not run when every range
it reads with lake_changes is empty and its other upstreams have no new
commit: its record is the digest of its source code (not the compiled SQL,
which names each run's ranges) and config, and the latest instant of each
upstream it does not read by commit range.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from dbt.adapters.lakehouse.formats.change_range import COMMIT_META_PREFIX, ChangeRead
from dbt.adapters.lakehouse.lake.metadata import LakeMetadata

BUILT_FROM_KEY = COMMIT_META_PREFIX + "built_from"
# What an Iceberg table built whole (CREATE OR REPLACE) was built from: a table property.
BUILT_FROM_PROPERTY = "lakehouse.built_from"


def built_from(
    sql: str, config: Mapping[str, Any], upstream_instants: Mapping[str, str | None]
) -> str | None:
    """What a build reads, as one string; None when an upstream has no instant
    to compare (not a Hudi table, or never committed to)."""
    if any(instant is None for instant in upstream_instants.values()):
        return None
    definition = json.dumps({"sql": sql, "config": config}, sort_keys=True, default=str)
    upstreams = ",".join(f"{name}@{instant}" for name, instant in sorted(upstream_instants.items()))
    return f"{hashlib.sha256(definition.encode()).hexdigest()[:16]};{upstreams}"


class BuildRecords:
    """What each model of this invocation is built from, noted as it compiles
    or starts, for its next commit to record; and what its table recorded."""

    def __init__(self, metadata: LakeMetadata) -> None:
        self._metadata = metadata
        self._noted: dict[str, str] = {}  # by model unique_id

    def note(
        self, model: Mapping[str, Any], code: str, upstreams: Sequence[str | None]
    ) -> str | None:
        """What this build reads (built_from), kept for the model's next commit
        to record; None if it cannot be compared. An upstream is None when it
        is ephemeral or not built yet: nothing to compare then."""
        tables = [upstream for upstream in upstreams if upstream is not None]
        if len(tables) < len(upstreams):
            return None
        instants = {table: self._metadata.latest_position(table) for table in tables}
        noted = built_from(code, model.get("config", {}), instants)
        if noted is not None:
            self._noted[model["unique_id"]] = noted
        return noted

    def commit_metadata(self, model: Mapping[str, Any]) -> dict[str, str]:
        """The extra commit metadata of the model's next write."""
        noted = self._noted.get(model["unique_id"])
        return {BUILT_FROM_KEY: noted} if noted is not None else {}

    def table_properties(self, model: Mapping[str, Any]) -> dict[str, str]:
        """The same, for an Iceberg or Delta table built whole: its table properties."""
        noted = self._noted.get(model["unique_id"])
        return {BUILT_FROM_PROPERTY: noted} if noted is not None else {}

    def last_recorded(self, table: str | None) -> str | None:
        """What the table's latest commit that recorded it was built from,
        else (built whole since) its table property."""
        if not table:
            return None
        # Its latest commit that recorded it (a Hudi commit's extra metadata,
        # an Iceberg snapshot's summary, a Delta commit's user metadata),
        # else the properties a build of the whole table set. (Any other
        # relation, say the view a model was before, has no history.)
        recorded = self._metadata.last_recorded(table, BUILT_FROM_KEY)
        return recorded or self._metadata.table_properties(table).get(BUILT_FROM_PROPERTY)

    def unchanged(
        self, model: Mapping[str, Any], existing: str | None, upstreams: Sequence[str | None]
    ) -> bool:
        """Whether a `table` model's table `existing` was built from exactly
        what it would read now (from `upstreams`); else its next write
        records what it reads."""
        if not upstreams:  # selects from nothing: nothing to compare
            return False
        noted = self.note(model, model.get("compiled_code") or "", upstreams)
        return noted is not None and self.last_recorded(existing) == noted

    def nothing_new(
        self,
        model: Mapping[str, Any],
        existing: str | None,
        upstreams: Sequence[str | None],
        reads: Sequence[ChangeRead],
    ) -> bool:
        """Whether an incremental model's every change read (`reads`) is
        empty and its definition and other upstreams are what `existing` was
        last written from. (Noted even when a range has rows: the write
        records it.)"""
        if not reads:
            return False
        by_range = {read.upstream.lower() for read in reads}
        others = [name for name in upstreams if name is None or name.lower() not in by_range]
        noted = self.note(model, model.get("raw_code") or "", others)
        return (
            noted is not None
            and all(read.is_empty for read in reads)
            and self.last_recorded(existing) == noted
        )
