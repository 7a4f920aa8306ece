"""What the adapter asks Spark and Hudi about a table: its timeline, the extra
metadata of its commits, its catalog properties. Every such question is asked
here, so planning code (change reads, test scope, unchanged builds, recovery)
reads as what it decides; the statements themselves are macros (statements.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats import registry
from dbt.adapters.lakehouse.formats.hudi import history as hudi_history
from dbt.adapters.lakehouse.formats.hudi.history import LatestCommit
from dbt.adapters.lakehouse.formats.table_format import NotThisFormat, TableFormat
from dbt.adapters.lakehouse.statements import Statements

# Runs a statement and returns its rows (adapter.execute with fetch=True).
Query = Callable[[str], Sequence[Any]]


@dataclass
class Description:
    """What `describe table extended` (or `describe query`) says of a relation."""

    columns: list[tuple[str, str, str]] = field(default_factory=list)  # name, type, comment
    partitions: list[str] = field(default_factory=list)  # the partition columns
    details: dict[str, str] = field(default_factory=dict)  # Type, Provider, Location, Owner, ...


def parse_describe(rows: Iterable[Any]) -> Description:
    """The rows of `describe table extended` in their sections: the columns
    (once: the partition section repeats the partition columns), the
    partition columns, the detailed table information."""
    described = Description()
    section = "columns"
    for row in rows:
        name = str(row[0] or "").strip()
        if name == "# Partition Information":
            section = "partitions"
        elif name == "# Partitioning":  # a table of another catalog (Iceberg's): its transforms
            section = "transforms"
        elif name == "# Detailed Table Information":
            section = "details"
        elif name.startswith("#"):  # a section's header row, or one not read here
            if section == "columns":
                section = "other"
        elif not name:
            if section in ("columns", "partitions", "transforms"):
                section = "other"
        elif section == "columns":
            described.columns.append((name, str(row[1]), str(row[2] or "")))
        elif section == "partitions":
            described.partitions.append(name)
        elif section == "transforms":
            described.partitions.append(str(row[1]))
        elif section == "details":
            described.details[name] = str(row[1] or "")
    return described


def in_own_catalog(table: str) -> bool:
    """Whether a table name (schema.table in the session catalog) names a
    table of another catalog: catalog.schema.table, Iceberg's tables kept
    outside the session catalog (a model's `database`)."""
    parts = table.split(".")
    return len(parts) == 3 and parts[0].strip("`").lower() != "spark_catalog"


class LakeMetadata:
    """Metadata queries over one connection's `query` function, their SQL
    from `statements`."""

    def __init__(self, query: Query, statements: Statements) -> None:
        self._query = query
        self._statements = statements
        self._schema_locations: dict[str, str] = {}

    def ask(self, statement: str, **arguments: Any) -> Sequence[Any]:
        """The rows of the statement macro lakehouse__<statement>."""
        return self._query(self._statements.sql(statement, **arguments))

    # --- the timeline ------------------------------------------------------------

    def completed_commits(self, table: str, limit: int) -> list[Any]:
        """A Hudi table's completed commits, newest first (formats/hudi/history.py)."""
        return hudi_history.completed_commits(self.ask, table, limit)

    def latest_commit_if_hudi(self, table: str) -> LatestCommit | None:
        return hudi_history.latest_commit_if_hudi(self.ask, table)

    def latest_position(self, table: str) -> str | None:
        """A lake table's latest position, as its format reads it (a Hudi
        table's latest instant, an Iceberg table's current snapshot, a Delta
        table's latest version of its data); None when never committed to,
        or not a lake table."""
        return self._by_format(table, lambda fmt: fmt.latest_position(self.ask, table))

    def last_recorded(self, table: str, key: str) -> str | None:
        """What the table's latest commit that recorded `key` recorded there,
        whatever its format; None when none did, or not a lake table."""
        return self._by_format(table, lambda fmt: fmt.recorded(self.ask, table, key))

    def _by_format(self, table: str, question: Callable[[TableFormat], str | None]) -> str | None:
        """`question` asked of the table's format; None for a table of none."""
        default = registry.get(registry.DEFAULT_FORMAT)
        # The default format's tables first: most are, and they need no describe.
        if not in_own_catalog(table):
            try:
                return question(default)
            except NotThisFormat:
                pass
        fmt = self.format_of(table)
        return None if fmt is None or fmt is default else question(fmt)

    def format_of(self, table: str) -> TableFormat | None:
        """The format of an existing table, as its catalog says; None for a
        table no registered format writes."""
        return registry.of_provider(self.provider(table))

    def provider(self, table: str) -> str:
        """The table's format as its catalog says (hudi, iceberg, delta,
        parquet, ...); a table of a catalog of its own is Iceberg's."""
        return self.provider_and_location(table)[0]

    def provider_and_location(self, table: str) -> tuple[str, str]:
        """provider() and the table's location, from one DESCRIBE (no
        location for a table of a catalog of its own: '')."""
        if in_own_catalog(table):
            return registry.OWN_CATALOG_FORMAT, ""
        details = self.describe(table).details
        return details.get("Provider", "").lower(), details.get("Location", "")

    def commit_partitions(self, table: str, instant: str) -> list[str]:
        rows = self.ask("show_commit_partitions", table=table, instant=instant)
        return [str(row["partition_path"]) for row in rows]

    # --- the catalog ---------------------------------------------------------------

    def table_properties(self, table: str) -> dict[str, str]:
        """The catalog's properties of the table (`show tblproperties`)."""
        return {str(row[0]): str(row[1]) for row in self.ask("show_table_properties", table=table)}

    def describe(self, table: str) -> Description:
        return parse_describe(self.ask("describe_table", table=table))

    def table_settings(self, table: str) -> tuple[dict[str, str], list[str], str]:
        """(catalog table properties, partition columns, location) of an existing table."""
        described = self.describe(table)
        location = described.details.get("Location", "")
        return self.table_properties(table), described.partitions, location

    def schema_location(self, schema: str) -> str:
        if schema not in self._schema_locations:
            rows = self.ask("describe_schema", schema=schema)
            found = [row[1] for row in rows if row[0] == "Location"]
            if not found:
                raise DbtRuntimeError(f"Spark reports no location for schema {schema}.")
            self._schema_locations[schema] = str(found[0]).rstrip("/")
        return self._schema_locations[schema]

    def has_rows(self, table: str) -> bool:
        return len(self.ask("has_rows", table=table)) > 0

    def session_setting(self, key: str) -> str | None:
        """A Spark setting of the session; None when unset."""
        rows = self.ask("session_setting", key=key)
        value = str(rows[0][1]) if rows else ""
        return None if value in ("", "<undefined>") else value

    # --- folders no catalog entry names (writes/killed_creates.py) ----------------------

    def list_paths(self, pattern: str) -> list[str]:
        """The paths a Hadoop glob pattern matches, through the session's file system."""
        return [str(row["storage_path"]) for row in self.ask("list_paths", pattern=pattern)]

    def remove_folder(self, placeholder: str, location: str) -> None:
        """Remove the folder at `location` (statements/killed_creates.sql says
        how); `placeholder` (schema.table) names no table and is left none."""
        # (One a killed removal left goes first, with whatever it points at.)
        self.ask("drop_placeholder", table=placeholder)
        self.ask("create_placeholder", table=placeholder)
        self.ask("point_placeholder", table=placeholder, location=location)
        self.ask("drop_placeholder", table=placeholder)
        self.ask("create_placeholder", table=placeholder)
        self.ask("drop_placeholder", table=placeholder)
