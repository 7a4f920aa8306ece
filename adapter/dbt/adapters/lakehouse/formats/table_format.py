"""What a table format provides: the one interface the adapter's shared code
asks, instead of comparing a format's name.

A format is a TableFormat registered under its `file_format` name
(registry.py). Hudi's, Iceberg's and Delta's are in their packages
(formats/<name>/format.py); a format from another package is named by an
entry point of the group dbt_lakehouse.table_formats (formats/__init__.py
registers it), its macros lakehouse_<name>__* beside it
(macros/formats/dispatch.sql). Whatever a format leaves as it is here, it
does without: no jars, no SQL extension, no history to read positions from,
no change reads, no table services, no lake stats.

What shared code asks of a format:
- its configs: what each config of the shared vocabulary does on it, what
  to use instead of one it refuses, and the incremental strategies it runs
  (config_support.py reads them); a model's configs parsed (table_config);
- its table services: the compaction, cleaning and rollback statements due
  on a table after a write or on demand (services);
- the session: the jars, SQL extension and Spark settings a session needs
  to hold its tables, and what a server needs to serve them;
- who else reads its tables: the readers outside Spark that read them as
  the adapter writes them (tested: tests/warehouse/test_table_formats.py);
- its history: a table's latest position (a commit, a snapshot, a version)
  and what the adapter's writes recorded in it (the positions a change read
  consumed, what a build was built from);
- its change reads: the range of a table a model reads in a run
  (change_history: a ChangeHistory plans it) and the relation that reads
  a planned range (change_source, as_of);
- dbt docs: a table's lake stats, and its history as a consumer's lag
  (catalog_stats: a CatalogHistory);
- a create killed midway: what of its files a table's folder holds
  (leftover_in_folder), and how the place of a table is cleared before it
  is created (clear_killed_create).

A method that reads a table's metadata gets `ask`: it runs the statement
macro `lakehouse__<name>` with its arguments and returns the rows
(lake/metadata.py's LakeMetadata.ask), so a format's SQL stays in macros a
project may override (statements.py); one that needs more of the catalog gets
the Lake. A method that writes a query gets `sql`, which renders a statement
macro.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.leftovers import Clearing, Found, ListPaths
from dbt.adapters.lakehouse.maven import MavenJar
from dbt.adapters.lakehouse.statements import Statements

# ask(statement, **arguments) -> the rows of lakehouse__<statement>.
Ask = Callable[..., Sequence[Any]]
# sql(statement, **arguments) -> the text of lakehouse__<statement>.
Sql = Callable[..., str]
# add(stat_id, label, value, description): one of a table's stats in dbt docs' catalog.
AddStat = Callable[[str, str, Any, str], None]


class Lake(Protocol):
    """What a format may ask of the lake's catalog (lake/metadata.py's LakeMetadata)."""

    def ask(self, statement: str, **arguments: Any) -> Sequence[Any]: ...

    def table_properties(self, table: str) -> dict[str, str]: ...

    def table_settings(self, table: str) -> tuple[dict[str, str], list[str], str]: ...


class NotThisFormat(Exception):
    """The table asked about is not of the format asked (see latest_position)."""

    def __init__(self, table: str, fmt: TableFormat) -> None:
        super().__init__(f"{table} is not a {fmt.title} table")


class ChangeHistory:
    """An upstream's history, as a change read plans a range of it (what a
    format's change_history returns, read once per planned read)."""

    def later(self, *positions: str | None) -> str | None:
        """The later of positions of this table (None: none given)."""
        raise NotImplementedError

    def plan(self, request: ReadRequest, consumed: str | None) -> ChangeRead:
        """The range `request` reads after `consumed` (None: from the
        start): through the latest position, or whole where a gap says
        reading after `consumed` could miss changes (an error with
        on_gap='fail')."""
        raise NotImplementedError

    def prepare(self, lake: Lake, read: ChangeRead, name: str) -> ChangeRead:
        """The planned `read`, ready for the run to read: whatever it needs
        set up in the session first (`name`: unique to the read in the
        run), and whether reading it costs more than its files."""
        return read


class CatalogHistory:
    """A table's history as dbt docs' catalog shows it (what a format's
    catalog_stats returns)."""

    def lag(self, positions: list[str]) -> str:
        """Where a consumer that recorded `positions` of this table (by its
        writes, and by runs that wrote nothing) stands, and how far behind."""
        raise NotImplementedError

    def latest_record(self) -> dict[str, str]:
        """What the table's latest write that recorded what it consumed
        recorded (its keys and values); empty when none did."""
        return {}


class TableServices:
    """A format's table services on one table (compaction, cleaning,
    rollback): the statements due, after a write or on demand. `lake`: the
    model's table_config; `database`: the catalog a model names (None: the
    session catalog's)."""

    def after_write(self, lake: Any, database: str | None, table: str) -> list[str]:
        """What a write's own run does next (an inline compaction when due,
        an automatic cleaning when something would go)."""
        return []

    def on_demand(
        self, lake: Any, database: str | None, table: str, service: str, position: str | None
    ) -> list[str]:
        """What lake_compact ('compact'), lake_compact_scheduled
        ('scheduled'), lake_clean ('clean') and lake_rollback ('rollback', to
        `position`) run."""
        return []


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

    def table_config(
        self, model: str, config: Mapping[str, Any], target_settings: Mapping[str, str]
    ) -> Any:
        """The model's configs on this format, parsed and validated (a
        LakeConfigError names the model, the config and the fix).
        `target_settings`: the profile's server_side_parameters."""
        raise NotImplementedError(f"{self.title} has no table config")

    def services(self, rows: Callable[[str], list[Any]], statements: Statements) -> TableServices:
        """Its table services, over a function that runs a statement and
        returns its rows and the statement macros (statements.py)."""
        return TableServices()

    # --- the session ------------------------------------------------------------

    # The Spark SQL extension that gives its DDL, MERGE and procedures.
    sql_extension: str | None = None
    # The catalog that keeps its tables, when not the session catalog (a
    # model's `database` may name another of its catalogs).
    catalog: str | None = None
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

    # --- change reads ---------------------------------------------------------------

    def change_history(self, lake: Lake, request: ReadRequest) -> ChangeHistory | None:
        """The upstream's history a change read plans against; None when the
        format keeps none that change reads read (then they refuse its
        tables). NotThisFormat as latest_position; an error naming the fix
        when the table keeps too little to read its changes."""
        return None

    def change_source(self, read: ChangeRead, sql: Sql) -> str:
        """The relation that reads a range this format's history planned."""
        raise NotImplementedError(f"{self.title} tables have no change reads")

    def as_of(self, read: ChangeRead, sql: Sql) -> str:
        """The table as of the end of a full read (the table itself where
        its current state is what a full read ends at)."""
        return read.upstream

    # --- dbt docs ---------------------------------------------------------------------

    def catalog_stats(
        self, lake: Lake, table: str, location: str, add: AddStat
    ) -> CatalogHistory | None:
        """Add the table's lake stats (commits, files, size, rows, ...), and
        return its history for its consumers' lag; None: none to show."""
        return None

    # --- a create killed midway (writes/killed_creates.py, leftovers.py) ---------------

    def leftover_in_folder(
        self, names: list[str], base: str, list_paths: ListPaths
    ) -> Found | None:
        """What the folder at `base` (its entries: `names`) holds of this
        format's files, for a table about to be created there; None when
        none of them are its."""
        return None

    def clear_killed_create(self, clearing: Clearing, replaces: bool) -> str | None:
        """Clear the place a table of this format is about to be created of
        what a killed create left (what was done, in words; None: nothing
        there). By default its folder, whose committed data fails the run.
        `replaces`: the create is a CREATE OR REPLACE."""
        return clearing.clear_folder(None)
