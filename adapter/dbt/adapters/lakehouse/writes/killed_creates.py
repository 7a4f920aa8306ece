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
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats.hudi import recovery

if TYPE_CHECKING:
    from dbt.adapters.lakehouse.lake.metadata import LakeMetadata

# What the folder was found to hold.
NOTHING = "nothing"
LEFTOVER = "leftover"
COMMITTED = "committed"

# A Hudi instant that completed: <requested>_<completed>.<action>.
COMPLETED_INSTANT = ".hoodie/timeline/[0-9]*_*"
# A version in Delta's log (checkpoints come with the versions they sum up).
DELTA_VERSION = "_delta_log/[0-9]*.json"
# Written by Spark's file commit protocol once a plain write has committed.
SUCCESS_MARKER = "_SUCCESS"
# Characters of a Hadoop glob pattern.
GLOB_SPECIAL = re.compile(r"([\\\[\]{}*?])")

# Lists the paths under a folder that a glob pattern (relative to it)
# matches, hidden ones included; none for no match or no folder.
ListPaths = Callable[[str, str], list[str]]


@dataclass(frozen=True)
class Found:
    verdict: str  # NOTHING, LEFTOVER or COMMITTED
    holds: str = ""  # what the folder holds, in words
    fmt: str = ""  # the format whose files it holds, if any


def literal_glob(path: str) -> str:
    """`path` as a Hadoop glob that matches it alone."""
    return GLOB_SPECIAL.sub(r"\\\1", path)


def local_lister(fallback: ListPaths) -> ListPaths:
    """A ListPaths that looks at a local folder directly (a session on this
    machine: no statement for the usual case, a folder that is not there),
    and asks `fallback` for any other store."""

    def list_paths(location: str, pattern: str) -> list[str]:
        path = recovery.local_path(location)
        if path is None:
            return fallback(location, pattern)
        return glob.glob(os.path.join(glob.escape(path), pattern), include_hidden=True)

    return list_paths


def look(location: str, list_paths: ListPaths) -> Found:
    """What the folder at `location` holds, for a table the catalog does not
    know that is about to be created there."""
    base = location.rstrip("/")
    names = sorted(path.rstrip("/").rsplit("/", 1)[-1] for path in list_paths(base, "*"))
    if not names:
        return Found(NOTHING)  # absent, or an empty folder (which Spark accepts)
    if ".hoodie" in names:
        completed = list_paths(base, COMPLETED_INSTANT)
        if completed:
            latest = max(path.rsplit("/", 1)[-1] for path in completed)
            return Found(
                COMMITTED,
                f"a Hudi table with {len(completed)} completed instant(s) on its timeline, "
                f"the latest {latest}",
                "hudi",
            )
        return Found(LEFTOVER, "a Hudi table's folder with no completed instant", "hudi")
    if "_delta_log" in names:
        versions = list_paths(base, DELTA_VERSION)
        # A CREATE TABLE commits version 0 with no data (a seed's, a
        # snapshot's): that alone is no committed data.
        data = [name for name in names if name != "_delta_log" and not name.startswith(".")]
        if versions and data:
            latest = max(path.rsplit("/", 1)[-1] for path in versions)
            return Found(
                COMMITTED,
                f"a Delta table with {len(versions)} version(s) in its log, the latest {latest}",
                "delta",
            )
        if versions:
            return Found(LEFTOVER, "a Delta table's log with no data files", "delta")
        return Found(LEFTOVER, "a Delta table's folder with no version in its log", "delta")
    if SUCCESS_MARKER in names:
        return Found(COMMITTED, f"files of a completed write ({', '.join(names[:5])})")
    return Found(COMMITTED, f"files of no table format: {', '.join(names[:5])}")


def where(location: str) -> str:
    """A folder, or Iceberg's table (catalog.schema.table), in words."""
    return f"its folder {location}" if "/" in location else f"Iceberg's table {location}"


def leftover_note(relation: str, location: str, found: Found) -> str:
    return (
        f"{relation} is not in the catalog, and {where(location)} held {found.holds}: "
        "what a run killed while it created the table leaves. Removed it; the table is "
        "created anew."
    )


def taken_over_note(relation: str, location: str, found: Found) -> str:
    return (
        f"{relation} is not in the catalog, and {where(location)} holds {found.holds}. "
        f"The model's CREATE OR REPLACE makes it the table's next version; the earlier "
        "ones stay in its history."
    )


def committed_error(model: str, relation: str, location: str, found: Found) -> str:
    fmt = found.fmt or "<format>"
    if "/" not in location:  # Iceberg's table, in Iceberg's catalog
        return (
            f"Model {model}: its table {relation} is not in the catalog, but Iceberg's "
            f"catalog holds {location}, {found.holds}. dbt-lakehouse never removes committed "
            f"data. Drop it (`drop table {location} purge`) or rename it in Iceberg's catalog "
            f"(`alter table {location} rename to ...`), then run again."
        )
    return (
        f"Model {model}: its table {relation} is not in the catalog, but the folder it "
        f"would be created in, {location}, holds {found.holds}. dbt-lakehouse never "
        "removes committed data. If it is this model's table (a metastore lost or "
        f"reset), register it: `create table {relation} using {fmt} location "
        f"'{location}'`, then run again (it is then an external table). If it is not "
        f"wanted, remove the folder (`hadoop fs -rm -r {location}`, or `rm -r` on a local "
        "disk) and run again."
    )


def is_no_table(message: str) -> bool:
    """Spark's or Iceberg's answer for a table (or its schema) that does not exist."""
    return any(
        marker in message
        for marker in (
            "TABLE_OR_VIEW_NOT_FOUND",
            "NoSuchTableException",
            "SCHEMA_NOT_FOUND",
            "NoSuchNamespaceException",
        )
    )


@dataclass(frozen=True)
class Place:
    """Where a model's table is about to be created."""

    relation: str  # schema.table in the session catalog
    model: str
    location: str  # the folder of a managed table of that name
    placeholder: str  # schema.table of no table, to remove a folder with (lake_metadata)
    iceberg_table: str  # catalog.schema.table in Iceberg's catalog


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
        committed data that the create would not take over."""
        if fmt == "iceberg":
            return self._clear_iceberg(place, replaces)
        found = look(place.location, self._list)
        return self._settle(place, place.location, found, replaces and found.fmt == fmt == "delta")

    def _settle(self, place: Place, location: str, found: Found, takes_over: bool) -> str | None:
        if found.verdict == NOTHING:
            return None
        if found.verdict == LEFTOVER:
            self._lake.remove_folder(place.placeholder, location)
            return leftover_note(place.relation, location, found)
        if takes_over:
            return taken_over_note(place.relation, location, found)
        raise DbtRuntimeError(committed_error(place.model, place.relation, location, found))

    def _clear_iceberg(self, place: Place, replaces: bool) -> str | None:
        """Iceberg's table is kept by Iceberg's catalog, the session catalog's
        entry is a pointer to it: a kill between the two leaves the table
        without its pointer; a kill before its first commit, files only."""
        folder = self._iceberg_folder(place.iceberg_table)
        if folder is not None and not self._list(folder, "*"):
            return None  # the usual case: Iceberg's catalog has nothing there
        try:
            snapshots = self._lake.ask("iceberg_snapshots", table=place.iceberg_table)
        except DbtRuntimeError as exc:
            if not is_no_table(str(exc)):
                raise
            if folder is None:
                return None  # no such table in a catalog of another type
            found = Found(LEFTOVER, "files of an Iceberg table never committed", "iceberg")
            return self._settle(place, folder, found, replaces)
        if snapshots:
            found = Found(
                COMMITTED,
                f"an Iceberg table with {len(snapshots)} snapshot(s) (in Iceberg's catalog, "
                "with no entry in the session catalog)",
                "iceberg",
            )
            return self._settle(place, place.iceberg_table, found, replaces)
        self._lake.ask("purge_iceberg_table", table=place.iceberg_table)
        return leftover_note(
            place.relation,
            place.iceberg_table,
            Found(LEFTOVER, "an Iceberg table with no snapshot"),
        )

    def _iceberg_folder(self, table: str) -> str | None:
        """Where Iceberg's Hadoop catalog keeps a table (catalog.schema.table);
        None for a catalog of another type."""
        catalog, schema, identifier = table.split(".")
        prefix = f"spark.sql.catalog.{catalog}"
        if (self._lake.session_setting(f"{prefix}.type") or "").lower() != "hadoop":
            return None
        warehouse = self._lake.session_setting(f"{prefix}.warehouse")
        return f"{warehouse.rstrip('/')}/{schema}/{identifier}" if warehouse else None
