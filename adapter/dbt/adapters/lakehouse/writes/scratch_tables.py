"""Where a model's write stages its batch, or a change read its range: a
scratch table per model and role beside the model's table on the lake (in the
session catalog, parquet, whatever the model's format), or a temporary view
of the session where a connection keeps batches in memory
(memory_staging.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dbt.adapters.lakehouse.lake.metadata import LakeMetadata


class ScratchTables:
    def __init__(
        self,
        metadata: LakeMetadata,
        optimistic: Callable[[], bool],
        run_token: str,
        in_memory: Callable[[], bool],
    ) -> None:
        self._metadata = metadata
        # Optimistic concurrency: another writer may build the same model at once.
        self._optimistic = optimistic
        self._run_token = run_token
        # Whether this connection keeps staged batches in memory.
        self._in_memory = in_memory

    def location(self, schema: str, identifier: str) -> str:
        """Where a managed table of this name would live: a scratch table is
        written there in overwrite mode, so files a killed run left behind are
        replaced instead of blocking every later run (LOCATION_ALREADY_EXISTS)."""
        return f"{self._metadata.schema_location(schema)}/{identifier.lower()}"

    def identifier(self, identifier: str, role: str) -> str:
        """The name of a model's scratch table for one role (its batch, a staged
        read). One name per model and role, so that the next run takes over what
        a killed run left. With optimistic concurrency another writer may build
        the same model at the same time, so each run's names carry a token of
        its own (a killed run's scratch table then stays, under its own name)."""
        name = f"{identifier}__lakehouse_{role}"
        if self._optimistic():
            name += f"_{self._run_token}"
        return name

    def path(self, schema: str, identifier: str, role: str) -> tuple[dict[str, Any], str]:
        """(relation path, relation type) of where a write of schema.identifier
        stages for `role`: a table in the session catalog beside it, or a
        temporary view, which has no schema (so named after the table's schema
        too)."""
        if not self._in_memory():
            return {"database": None, "identifier": self.identifier(identifier, role)}, "table"
        name = self.identifier(f"{schema}__{identifier}", role)
        return {"database": None, "schema": None, "identifier": name}, "view"
