"""What a Delta table's history says: its versions, and what the adapter's
writes recorded in them.

Where a Delta model records what it consumed (change reads): in the commit
that writes its rows. Spark SQL gives a MERGE no write options, but Delta
copies the session setting `spark.databricks.delta.commitInfo.userMetadata`
into the commit's info (its history's `userMetadata`), atomically with the
rows: a run killed before the commit records nothing, and the next run reads
the same range again. The text is the one the MERGE formats share
(merge_commits.wap_id). A table built whole (CREATE OR REPLACE ... AS
SELECT) also keeps it in the table properties that commit sets, and a run that
writes nothing sets it as table properties.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dbt.adapters.lakehouse.formats.merge_commits import naive_time, parse_wap_id
from dbt.adapters.lakehouse.formats.table_format import CatalogHistory

# Operations after which a change read from an earlier version is no longer
# a change read: the table was rebuilt (a new schema may make the change feed
# unreadable) or rolled back (its feed then holds every row of the files a
# RESTORE removed and re-added, not the changes by key).
REBUILDS = frozenset(
    {
        "CREATE OR REPLACE TABLE AS SELECT",
        "REPLACE TABLE AS SELECT",
        "CREATE OR REPLACE TABLE",
        "REPLACE TABLE",
        "RESTORE",
    }
)
VACUUM_START = "VACUUM START"
# Commits that change no data: VACUUM's (when Delta logs them), and the
# table properties a run that read a range and wrote nothing records its
# positions in (merge_write.sql). A reader finds no change in them.
NO_DATA_COMMITS = frozenset({VACUUM_START, "VACUUM END", "SET TBLPROPERTIES"})
# The session setting whose value Delta copies into the next commit's info.
USER_METADATA_SETTING = "spark.databricks.delta.commitInfo.userMetadata"


def _parameters(value: Any) -> dict[str, str]:
    """A commit's operationParameters: a dict from a session of this process,
    JSON text from a Thrift server (its maps are sent as text)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return {str(k): str(v) for k, v in (value or {}).items()} if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Version:
    version: int
    committed_at: datetime
    operation: str
    parameters: Mapping[str, str]
    user_metadata: str | None


@dataclass(frozen=True)
class History(CatalogHistory):
    """The versions Delta's log still holds, oldest first."""

    versions: tuple[Version, ...] = ()

    @classmethod
    def from_rows(cls, rows: Iterable[Any]) -> History:
        """From the rows of `describe history` (lakehouse__delta_history)."""
        versions = [
            Version(
                version=int(row["version"]),
                committed_at=naive_time(row["timestamp"]),
                operation=str(row["operation"]),
                parameters=_parameters(row["operationParameters"]),
                user_metadata=row["userMetadata"],
            )
            for row in rows
        ]
        return cls(tuple(sorted(versions, key=lambda v: v.version)))

    @property
    def latest(self) -> str | None:
        """The latest version of the table's data (NO_DATA_COMMITS left out)."""
        data = self.data_versions(self.versions)
        return str(data[-1].version) if data else None

    def after(self, position: str) -> list[Version]:
        return [v for v in self.versions if v.version > int(position)]

    @staticmethod
    def data_versions(versions: Iterable[Version]) -> list[Version]:
        return [v for v in versions if v.operation not in NO_DATA_COMMITS]

    def latest_record(self) -> dict[str, str]:
        """What the latest version written by the adapter recorded; empty if none."""
        for version in reversed(self.versions):
            recorded = parse_wap_id(version.user_metadata)
            if recorded is not None:
                return recorded
        return {}

    def recorded(self, key: str) -> str | None:
        return self.latest_record().get(key)

    @staticmethod
    def later(*positions: str | None) -> str | None:
        """The latest of `positions` (versions order as numbers)."""
        return max((p for p in positions if p), key=int, default=None)

    def lag(self, positions: list[str]) -> str:
        """Where a consumer stands, in versions that changed data."""
        version = self.later(*positions) or "-1"
        behind = len(self.data_versions(self.after(version)))
        return f"up to version {version}" + (
            ", up to date" if behind == 0 else f", {behind} version(s) behind"
        )

    def gap(self, consumed: str) -> str | None:
        """Why a change read after version `consumed` could miss changes, or None."""
        after = self.data_versions(self.after(consumed))
        if not self.versions or int(consumed) > self.versions[-1].version:
            return "is after that table's latest version (the table was rebuilt)"
        if self.versions[0].version > int(consumed) + 1:
            return (
                f"is older than the oldest version its log keeps ({self.versions[0].version}); "
                "an incremental read from it could miss changes"
            )
        rebuilt = [v for v in after if v.operation in REBUILDS]
        if rebuilt:
            first = rebuilt[0]
            return (
                f"is followed by version {first.version}, a {first.operation}: its change feed "
                "is no change of rows by key"
            )
        if after:
            vacuumed = self._vacuumed_after(after[0])
            if vacuumed is not None:
                return (
                    f"is followed by versions whose files the VACUUM of version "
                    f"{vacuumed.version} may have deleted; an incremental read from it could "
                    "miss changes"
                )
        return None

    def _vacuumed_after(self, first: Version) -> Version | None:
        """A VACUUM after version `first` whose retention did not keep the
        files written as of it (a version's files are kept when the VACUUM
        keeps what was removed after the version was committed)."""
        for version in self.versions:
            if version.version <= first.version or version.operation != VACUUM_START:
                continue
            millis = version.parameters.get("specifiedRetentionMillis", "None")
            if millis in ("None", ""):
                millis = version.parameters.get("defaultRetentionMillis", "0")
            kept_from = version.committed_at.timestamp() - int(millis) / 1000
            if first.committed_at.timestamp() < kept_from:
                return version
        return None
