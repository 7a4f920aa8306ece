"""What a writer killed mid-way leaves on a Hudi table that the next run must clear.

Hudi rolls back a dead writer's own commits by itself on the next write. One
thing it does not recover in 1.2 is a compaction of the table's metadata table
(`.hoodie/metadata`, itself a merge-on-read Hudi table) that was running when
the writer died: see recover_metadata_table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats.leftovers import (
    COMMITTED,
    LEFTOVER,
    Found,
    ListPaths,
    latest_name,
    local_path,
)
from dbt.adapters.lakehouse.formats.table_format import Ask

# A Hudi instant that completed: <requested>_<completed>.<action>.
COMPLETED_INSTANT = ".hoodie/timeline/[0-9]*_*"
# Metadata-table services that rewrite file slices in place.
COMPACTIONS = ("compaction", "logcompaction")


def metadata_table_path(location: str) -> str:
    return location.rstrip("/") + "/.hoodie/metadata"


def metadata_table_glob(location: str) -> str:
    """A pattern that matches the metadata table's hoodie.properties only when
    the table has one. Hudi's `show_fs_path_detail` lists what a pattern
    matches, no rows for none (on a plain path that does not exist it fails,
    with a NullPointerException in Hudi 1.2): one listing on any file system,
    through whatever session runs the statements."""
    return metadata_table_path(location) + "/.hoodie/hoodie.propertie[s]"


def has_no_metadata_table(location: str) -> bool:
    """True when the location is local and holds no metadata table: asking
    Hudi for the timeline of a missing table costs seconds (it fails slowly),
    and most tables here run without one (see write_defaults)."""
    path = local_path(metadata_table_path(location))
    return path is not None and not os.path.isdir(os.path.join(path, ".hoodie"))


def pending_metadata_compactions(timeline: Iterable[Any]) -> list[str]:
    """Instants of compactions on the metadata table's timeline (rows of
    `CALL show_timeline`) that were requested or started but never completed."""
    return sorted(
        str(row["instant_time"])
        for row in timeline
        if row["action"] in COMPACTIONS and str(row["state"]).upper() != "COMPLETED"
    )


def is_missing_table(message: str) -> bool:
    """Hudi's answer for a path that holds no Hudi table."""
    return "Hoodie table not found" in message or "TableNotFoundException" in message


def metadata_table_timeline(ask: Ask, location: str, same_disk: bool) -> list[Any]:
    """Instants of the table's metadata table; none when it has none.
    `same_disk`: the session's files are this process's (the embedded
    session), so a local table's folder can be looked at directly."""
    # Asking Hudi for the timeline of a metadata table that does not
    # exist takes seconds (it retries reading its properties: 5.5 s on
    # S3), and most tables here have none (see write_defaults): look first.
    if same_disk and local_path(location) is not None:
        if has_no_metadata_table(location):
            return []
    elif not ask("show_fs_path_detail", path=metadata_table_glob(location)):
        return []
    try:
        return list(ask("show_timeline", path=metadata_table_path(location), limit=50))
    except DbtRuntimeError as exc:
        if is_missing_table(str(exc)):
            return []  # no metadata table (disabled, or being rebuilt)
        raise


def recover_metadata_table(ask: Ask, table: str, location: str, same_disk: bool) -> list[str]:
    """Drop the table's metadata table if a dead writer left a compaction of
    it pending; the next write rebuilds it from the files. Returns the
    pending compactions (none: nothing was dropped).

    Hudi 1.2 does not recover such a compaction before the next write's
    metadata update lands in the half-compacted file slices: that write
    fails (ArrayIndexOutOfBounds in HoodieMetadataPayload, or, while the
    dead writer's heartbeat lasts, a HoodieLockException), and so would
    every run until someone intervenes. The metadata table holds only
    derived data (file listings, column statistics), so rebuilding it loses
    nothing. Writes to one table are serial within a run, so a pending
    compaction seen here was left by a process that is gone (the caller
    does not ask under optimistic concurrency, where it may belong to a
    live writer)."""
    pending = pending_metadata_compactions(metadata_table_timeline(ask, location, same_disk))
    if pending:
        ask("delete_metadata_table", table=table)
    return pending


def folder_leftover(names: list[str], base: str, list_paths: ListPaths) -> Found | None:
    """A Hudi table's folder: committed once an instant completed on its
    timeline (its catalog entry exists before any commit, so that is never
    what a killed create leaves)."""
    if ".hoodie" not in names:
        return None
    completed = list_paths(base, COMPLETED_INSTANT)
    if completed:
        return Found(
            COMMITTED,
            f"a Hudi table with {len(completed)} completed instant(s) on its timeline, "
            f"the latest {latest_name(completed)}",
            "hudi",
        )
    return Found(LEFTOVER, "a Hudi table's folder with no completed instant", "hudi")
