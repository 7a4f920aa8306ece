"""What a run killed while it created a table the first time leaves, and what
the next run does with it before it creates the table.

Every format creates a table in two steps: it writes the table's folder, then
the session catalog records the table. Hudi writes `.hoodie/hoodie.properties`
and an empty timeline, then the catalog entry (the rows follow in a write of
their own); Delta writes its log (and, for CREATE TABLE AS SELECT, the data
and version 0), then the entry; Iceberg's catalog (a Hadoop catalog, its own
folder) gets the table's data and metadata files, then the session catalog a
pointer to it (java/LakeSessionCatalog.java). A run killed between the two
steps, or while the folder is written, leaves a folder no catalog entry names.
Spark refuses a managed table at a folder that is not empty
(LOCATION_ALREADY_EXISTS) and Iceberg's catalog a table it holds already, so
every later run of the model failed until someone removed the folder by hand.

So before a model's table is created where the catalog has none, the adapter
looks at the place it goes (a managed table's folder; Iceberg's table):
- nothing there: the usual case, nothing to do (one listing);
- a leftover: nothing committed (no completed instant on Hudi's timeline, no
  version in Delta's log, no snapshot of Iceberg's table, or only files a
  write leaves before its commit): removed, and the log says so;
- committed data: a table whose catalog entry is gone (a metastore lost or
  reset, a table another engine wrote there). Never removed: the run fails,
  naming the folder, what it holds, and how to register or remove it. Where
  the model's statement is CREATE OR REPLACE (a `table` model, an incremental
  model's first build on Delta and Iceberg), those formats take the table
  over as a new version and keep the old ones in its history, so the run
  goes on and the log says so.

Hudi's catalog entry exists before any commit, so a committed Hudi folder
without one is never what a killed create leaves.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats import registry
from dbt.adapters.lakehouse.formats.leftovers import (
    COMMITTED,
    LEFTOVER,
    NOTHING,
    Found,
    ListPaths,
    leftover_note,
    local_path,
    taken_over_note,
)

if TYPE_CHECKING:
    from dbt.adapters.lakehouse.lake.metadata import LakeMetadata

__all__ = ["COMMITTED", "LEFTOVER", "NOTHING", "Found", "Place", "Recovery", "look"]

# Written by Spark's file commit protocol once a plain write has committed.
SUCCESS_MARKER = "_SUCCESS"
# Characters of a Hadoop glob pattern.
GLOB_SPECIAL = re.compile(r"([\\\[\]{}*?])")


def literal_glob(path: str) -> str:
    """`path` as a Hadoop glob that matches it alone."""
    return GLOB_SPECIAL.sub(r"\\\1", path)


def local_lister(fallback: ListPaths) -> ListPaths:
    """A ListPaths that looks at a local folder directly (a session on this
    machine: no statement for the usual case, a folder that is not there),
    and asks `fallback` for any other store."""

    def list_paths(location: str, pattern: str) -> list[str]:
        path = local_path(location)
        if path is None:
            return fallback(location, pattern)
        return glob.glob(os.path.join(glob.escape(path), pattern), include_hidden=True)

    return list_paths


def look(location: str, list_paths: ListPaths) -> Found:
    """What the folder at `location` holds, for a table the catalog does not
    know that is about to be created there: a format's files, as the format
    tells them (TableFormat.leftover_in_folder), or others."""
    base = location.rstrip("/")
    names = sorted(path.rstrip("/").rsplit("/", 1)[-1] for path in list_paths(base, "*"))
    if not names:
        return Found(NOTHING)  # absent, or an empty folder (which Spark accepts)
    for name in registry.FORMATS:
        found = registry.get(name).leftover_in_folder(names, base, list_paths)
        if found is not None:
            return found
    if SUCCESS_MARKER in names:
        return Found(COMMITTED, f"files of a completed write ({', '.join(names[:5])})")
    return Found(COMMITTED, f"files of no table format: {', '.join(names[:5])}")


def committed_error(model: str, relation: str, location: str, found: Found) -> str:
    fmt = found.fmt or "<format>"
    return (
        f"Model {model}: its table {relation} is not in the catalog, but the folder it "
        f"would be created in, {location}, holds {found.holds}. dbt-lakehouse never "
        "removes committed data. If it is this model's table (a metastore lost or "
        f"reset), register it: `create table {relation} using {fmt} location "
        f"'{location}'`, then run again (it is then an external table). If it is not "
        f"wanted, remove the folder (`hadoop fs -rm -r {location}`, or `rm -r` on a local "
        "disk) and run again."
    )


@dataclass(frozen=True)
class Place:
    """Where a model's table is about to be created."""

    relation: str  # the table, as messages name it
    model: str
    table: str  # schema.table in the session catalog
    location: str  # the folder of a managed table of that name
    placeholder: str  # schema.table of no table, to remove a folder with (lake_metadata)


class Recovery:
    """Clears a place of what a killed create left, through the session's
    statements (on every method and store)."""

    def __init__(self, lake: LakeMetadata, same_disk: bool) -> None:
        """`same_disk`: the session's files are this machine's (method session)."""
        self._lake = lake
        remote: ListPaths = lambda location, pattern: lake.list_paths(  # noqa: E731
            literal_glob(location) + "/" + pattern
        )
        self._list = local_lister(remote) if same_disk else remote

    def clear(self, place: Place, fmt: str, replaces: bool) -> str | None:
        """What was done, in words (None: nothing was there); raises on
        committed data that the create would not take over. `fmt`: the
        format of the table created (its TableFormat.clear_killed_create)."""
        table_format = registry.of_provider(fmt) or registry.default()
        return table_format.clear_killed_create(_Clearing(self, place), replaces)

    def list_paths(self, location: str, pattern: str) -> list[str]:
        return self._list(location, pattern)

    def remove_folder(self, place: Place, location: str) -> None:
        self._lake.remove_folder(place.placeholder, location)

    @property
    def lake(self) -> LakeMetadata:
        return self._lake


class _Clearing:
    """One place, as a format clears it (formats/leftovers.py's Clearing)."""

    def __init__(self, recovery: Recovery, place: Place) -> None:
        self._recovery = recovery
        self._place = place
        self.relation = place.relation
        self.model = place.model
        self.table = place.table

    def list_paths(self, location: str, pattern: str) -> list[str]:
        return self._recovery.list_paths(location, pattern)

    def ask(self, statement: str, **arguments: Any) -> Sequence[Any]:
        return self._recovery.lake.ask(statement, **arguments)

    def session_setting(self, key: str) -> str | None:
        return self._recovery.lake.session_setting(key)

    def clear_folder(self, takes_over: str | None) -> str | None:
        location = self._place.location
        found = look(location, self._recovery.list_paths)
        where = f"its folder {location}"
        if found.verdict == COMMITTED:
            if takes_over is not None and found.fmt == takes_over:
                return taken_over_note(self.relation, where, found)
            raise DbtRuntimeError(committed_error(self.model, self.relation, location, found))
        return self.settle(where, location, found)

    def settle(self, where: str, location: str, found: Found) -> str | None:
        if found.verdict == NOTHING:
            return None
        if found.verdict == COMMITTED:  # never removed, whoever asks
            raise DbtRuntimeError(committed_error(self.model, self.relation, location, found))
        self._recovery.remove_folder(self._place, location)
        return leftover_note(self.relation, where, found)
