"""What the adapter asks Spark and Hudi about a table: its timeline, the extra
metadata of its commits, its catalog properties. Every such statement is built
here, so planning code (change reads, test scope, unchanged builds, recovery)
holds no SQL and reads as what it decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import recovery

# Runs a statement and returns its rows (adapter.execute with fetch=True).
Query = Callable[[str], Sequence[Any]]

# A table's position is in its latest write; only table services (compaction,
# clustering) come between, so a short look back suffices.
POSITION_SCAN = 30


@dataclass(frozen=True)
class LatestCommit:
    instant: str  # the latest instant requested
    completed: str  # the latest completion time among the recent commits


def is_not_hudi(exc: Exception) -> bool:
    return "is not a Hudi table" in str(exc)


class LakeMetadata:
    """Metadata queries over one connection's `query` function."""

    def __init__(self, query: Query) -> None:
        self._query = query
        self._schema_locations: dict[str, str] = {}

    # --- the timeline ------------------------------------------------------------

    def completed_commits(self, table: str, limit: int) -> list[Any]:
        """Completed writes and table services, newest instant first (rows of
        `CALL show_commits`: commit_time, state_transition_time, ...)."""
        return list(self._query(f"call show_commits(table => '{table}', limit => {limit})"))

    def latest_commit(self, table: str) -> LatestCommit | None:
        """None when nothing was ever committed; Spark's error when the table
        is not Hudi (see latest_commit_if_hudi)."""
        # A few, not one: an older instant (a compaction, another writer's
        # commit) may have completed after the newest one.
        commits = self.completed_commits(table, 10)
        if not commits:
            return None
        # Listed newest instant first.
        return LatestCommit(
            instant=str(commits[0]["commit_time"]),
            completed=max(str(c["state_transition_time"]) for c in commits),
        )

    def latest_commit_if_hudi(self, table: str) -> LatestCommit | None:
        """latest_commit, and None for a table that is not Hudi."""
        try:
            return self.latest_commit(table)
        except Exception as exc:  # Spark's own exception on the embedded session
            if is_not_hudi(exc):
                return None
            raise

    def cleaned_before(self, table: str) -> str | None:
        """The instant before which the cleaner may have removed file slices
        (from the table's recent cleans); None if nothing was cleaned."""
        cleans = self._query(f"call show_cleans(table => '{table}', limit => 10)")
        # A clean that names no earliest instant to retain (file-version
        # policy) may have removed any slice written before it ran.
        floors = [
            str(c["earliest_commit_to_retain"] or c["clean_time"])
            for c in cleans
            if c["total_files_deleted"]
        ]
        return max(floors, default=None)

    def recorded(self, table: str, key: str) -> str | None:
        """The value of `key` in the extra metadata of the latest commit that has it."""
        for commit in self.completed_commits(table, POSITION_SCAN):
            rows = self._query(
                f"call show_commit_extra_metadata(table => '{table}', "
                f"instant_time => '{commit['commit_time']}', metadata_key => '{key}')"
            )
            for row in rows:
                return str(row["metadata_value"])
        return None

    def commit_extra_metadata(self, table: str, instant: str) -> dict[str, str]:
        """Every key of one commit's extra metadata."""
        rows = self._query(
            f"call show_commit_extra_metadata(table => '{table}', instant_time => '{instant}', "
            "limit => 1000)"
        )
        return {str(row["metadata_key"]): str(row["metadata_value"]) for row in rows}

    def commit_partitions(self, table: str, instant: str) -> list[str]:
        rows = self._query(
            f"call show_commit_partitions(table => '{table}', instant_time => '{instant}')"
        )
        return [str(row["partition_path"]) for row in rows]

    # --- the catalog ---------------------------------------------------------------

    def table_properties(self, table: str) -> dict[str, str]:
        return {str(row[0]): str(row[1]) for row in self._query(f"show tblproperties {table}")}

    def table_settings(self, table: str) -> tuple[dict[str, str], list[str], str]:
        """(catalog table properties, partition columns, location) of an existing table."""
        described = self._query(f"describe table extended {table}")
        partitions: list[str] = []
        location = ""
        in_partitions = False
        for row in described:
            name = (row[0] or "").strip()
            if name == "# Partition Information":
                in_partitions = True
            elif in_partitions and (not name or name.startswith("# Detailed")):
                in_partitions = False
            elif in_partitions and not name.startswith("#"):
                partitions.append(name)
            elif name == "Location":
                location = row[1]
        return self.table_properties(table), partitions, location

    def schema_location(self, schema: str) -> str:
        if schema not in self._schema_locations:
            rows = self._query(f"describe schema extended {schema}")
            found = [row[1] for row in rows if row[0] == "Location"]
            if not found:
                raise DbtRuntimeError(f"Spark reports no location for schema {schema}.")
            self._schema_locations[schema] = str(found[0]).rstrip("/")
        return self._schema_locations[schema]

    def has_rows(self, table: str) -> bool:
        return len(self._query(f"select 1 from {table} limit 1")) > 0

    def jvm_time_zone(self) -> str:
        """The zone of the JVM that runs Spark: Hudi's instants are in it by default."""
        return str(self._query("select reflect('java.time.ZoneId', 'systemDefault')")[0][0])

    # --- the metadata table (recovery.py) --------------------------------------

    def metadata_table_timeline(self, location: str) -> list[Any]:
        """Instants of the table's metadata table; none when it has none."""
        if recovery.has_no_metadata_table(location):
            return []
        path = recovery.metadata_table_path(location)
        try:
            return list(self._query(f"call show_timeline(path => '{path}', limit => 50)"))
        except DbtRuntimeError as exc:
            if recovery.is_missing_table(str(exc)):
                return []  # no metadata table (disabled, or being rebuilt)
            raise

    def drop_metadata_table(self, table: str) -> None:
        self._query(f"call delete_metadata_table(table => '{table}')")
