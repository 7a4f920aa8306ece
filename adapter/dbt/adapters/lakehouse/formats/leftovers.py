"""What a create killed midway leaves where a table goes, in terms every
format shares (writes/killed_creates.py looks and clears; each format says
what of its own it finds: TableFormat.leftover_in_folder and
clear_killed_create)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# What the place was found to hold.
NOTHING = "nothing"
LEFTOVER = "leftover"
COMMITTED = "committed"

# Lists the paths under a folder that a glob pattern (relative to it)
# matches, hidden ones included; none for no match or no folder.
ListPaths = Callable[[str, str], list[str]]


@dataclass(frozen=True)
class Found:
    verdict: str  # NOTHING, LEFTOVER or COMMITTED
    holds: str = ""  # what the place holds, in words
    fmt: str = ""  # the format whose files it holds, if any


class Clearing(Protocol):
    """A place a table is about to be created where the catalog has none,
    with what clearing it takes (writes/killed_creates.py's Recovery)."""

    relation: str  # the table, as messages name it
    model: str  # the model's name
    table: str  # schema.table in the session catalog

    def list_paths(self, location: str, pattern: str) -> list[str]: ...

    def ask(self, statement: str, **arguments: Any) -> Sequence[Any]: ...

    def session_setting(self, key: str) -> str | None: ...

    def clear_folder(self, takes_over: str | None) -> str | None:
        """Clear the table's folder of a leftover (what was done, in words;
        None: nothing there). Committed data fails the run, unless it is a
        table of the format `takes_over` names, which the create makes its
        next version."""
        ...

    def settle(self, where: str, location: str, found: Found) -> str | None:
        """Remove a leftover at the folder `location` (`where`: the place in
        words); None for nothing found. Committed data is the caller's."""
        ...


def leftover_note(relation: str, where: str, found: Found) -> str:
    return (
        f"{relation} is not in the catalog, and {where} held {found.holds}: "
        "what a run killed while it created the table leaves. Removed it; the table is "
        "created anew."
    )


def taken_over_note(relation: str, where: str, found: Found) -> str:
    return (
        f"{relation} is not in the catalog, and {where} holds {found.holds}. "
        f"The model's CREATE OR REPLACE makes it the table's next version; the earlier "
        "ones stay in its history."
    )


def is_no_table(message: str) -> bool:
    """Spark's or a catalog's answer for a table (or its schema) that does not exist."""
    return any(
        marker in message
        for marker in (
            "TABLE_OR_VIEW_NOT_FOUND",
            "NoSuchTableException",
            "SCHEMA_NOT_FOUND",
            "NoSuchNamespaceException",
        )
    )


def latest_name(paths: list[str]) -> str:
    return max(path.rsplit("/", 1)[-1] for path in paths)


def local_path(location: str) -> str | None:
    """The local filesystem path of a table location, or None when the table
    lives on another filesystem (hdfs:, s3a:, ...)."""
    if location.startswith("file:"):
        return "/" + location[len("file:") :].lstrip("/")
    if location.startswith("/"):
        return location
    return None
