"""What a table format provides: the one interface the adapter's shared code
asks, instead of comparing a format's name.

A format is a TableFormat registered under its `file_format` name
(registry.py). Hudi's, Iceberg's and Delta's are in their packages
(formats/<name>/format.py); a format from elsewhere registers one of its own
(registry.register). Whatever a format leaves as it is here, it does
without: no jars, no SQL extension, no history to read positions from.

What shared code asks of a format:
- its configs: what each config of the shared vocabulary does on it, what
  to use instead of one it refuses, and the incremental strategies it runs
  (config_support.py reads them);
- the session: the jars, SQL extension and Spark settings a session needs
  to hold its tables, and what a server needs to serve them;
- who else reads its tables: the readers outside Spark that read them as
  the adapter writes them (tested: tests/warehouse/test_table_formats.py);
- its history: a table's latest position (a commit, a snapshot, a version)
  and what the adapter's writes recorded in it (the positions a change read
  consumed, what a build was built from).

A method that reads a table's metadata gets `ask`: it runs the statement
macro `lakehouse__<name>` with its arguments and returns the rows
(lake/metadata.py's LakeMetadata.ask), so a format's SQL stays in macros a
project may override (statements.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dbt.adapters.lakehouse.maven import MavenJar

# ask(statement, **arguments) -> the rows of lakehouse__<statement>.
Ask = Callable[..., Sequence[Any]]


class NotThisFormat(Exception):
    """The table asked about is not of the format asked (see latest_position)."""

    def __init__(self, table: str, fmt: TableFormat) -> None:
        super().__init__(f"{table} is not a {fmt.title} table")


class TableFormat:
    """A table format, as shared code sees it (the defaults: a format that
    needs nothing beyond Spark's own and keeps no history)."""

    # The `file_format` a model names it by; how messages name it.
    name: str = ""
    title: str = ""

    # --- its configs ------------------------------------------------------------

    # What each config it takes does on it (config_support.py: a config it
    # does not list, it refuses), and per config it refuses what to use instead.
    configs: Mapping[str, str] = {}
    instead: Mapping[str, str] = {}
    # The incremental strategies it runs, and how; None: every one
    # (relation_configs/strategies.py).
    strategies: Mapping[str, str] | None = None

    # The readers outside Spark (no JVM) that read its tables as the adapter
    # writes them, and what of them (adapter/README.md's table: registry.py).
    readers: Mapping[str, str] = {}

    # --- the session ------------------------------------------------------------

    # The Spark SQL extension that gives its DDL, MERGE and procedures.
    sql_extension: str | None = None
    # Whether its tables are held by the session catalog of the formats
    # (java/LakeSessionCatalog.java) in front of Hudi's.
    in_lake_session_catalog: bool = False
    # What a Thrift or Connect server needs on its class path to serve it.
    server_jars: str = ""

    def session_conf(self, warehouse: str, master: str) -> dict[str, str]:
        """Spark settings of a session holding the format, with the
        warehouse at `warehouse`, on `master`."""
        return {}

    def jars(self, spark: str, scala: str) -> dict[str, MavenJar]:
        """The jars a session of that Spark (major.minor) and Scala (binary)
        version adds for the format, by what they are (fetched by maven.py)."""
        return {}

    # --- history ----------------------------------------------------------------

    def latest_position(self, ask: Ask, table: str) -> str | None:
        """The latest position of a table of this format (what a change read
        reads up to); None when nothing was written. NotThisFormat when the
        table is another format's, for a format asked before the catalog is
        (the default one: most tables are its own)."""
        return None

    def recorded(self, ask: Ask, table: str, key: str) -> str | None:
        """What the latest write that recorded `key` in its commit recorded
        there; None when no write did. NotThisFormat as latest_position."""
        return None
