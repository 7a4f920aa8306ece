"""What a Delta create killed midway leaves in the table's folder
(formats/leftovers.py): its log, with or without a version and data."""

from __future__ import annotations

from dbt.adapters.lakehouse.formats.leftovers import (
    COMMITTED,
    LEFTOVER,
    Found,
    ListPaths,
    latest_name,
)

# A version in Delta's log (checkpoints come with the versions they sum up).
VERSION = "_delta_log/[0-9]*.json"


def folder_leftover(names: list[str], base: str, list_paths: ListPaths) -> Found | None:
    if "_delta_log" not in names:
        return None
    versions = list_paths(base, VERSION)
    # A CREATE TABLE commits version 0 with no data (a seed's, a
    # snapshot's): that alone is no committed data.
    data = [name for name in names if name != "_delta_log" and not name.startswith(".")]
    if versions and data:
        return Found(
            COMMITTED,
            f"a Delta table with {len(versions)} version(s) in its log, "
            f"the latest {latest_name(versions)}",
            "delta",
        )
    if versions:
        return Found(LEFTOVER, "a Delta table's log with no data files", "delta")
    return Found(LEFTOVER, "a Delta table's folder with no version in its log", "delta")
