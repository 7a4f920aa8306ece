"""What dbt docs' catalog shows of a Hudi table (formats/table_format.py's
catalog_stats): what its hoodie.properties, timeline and files say, and
where each consumer that reads it by change reads stands on its timeline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats.hudi import history
from dbt.adapters.lakehouse.formats.table_format import AddStat, Ask, CatalogHistory

# Writes and replacements on a Hudi timeline (not cleans, rollbacks, ...).
WRITE_ACTIONS = frozenset({"commit", "deltacommit", "replacecommit"})
# The whole active timeline; a consumer's record is in one of the latest writes.
TIMELINE_SCAN = 100_000
RECORD_SCAN = 30


def instant_time(instant: str) -> str:
    """yyyyMMddHHmmssSSS as a readable time (Hudi's instants are in the Spark JVM's zone)."""
    if len(instant) < 14 or not instant[:14].isdigit():
        return instant
    d = instant
    text = f"{d[0:4]}-{d[4:6]}-{d[6:8]} {d[8:10]}:{d[10:12]}:{d[12:14]}"
    return text + (f".{d[14:17]}" if len(d) >= 17 else "")


class HudiHistory(CatalogHistory):
    """A Hudi table's completed writes, by completion time; `ask` and `table`
    read what its own writes recorded, when a consumer stat needs it."""

    def __init__(self, completions: list[str], ask: Ask | None = None, table: str = "") -> None:
        self.completions = sorted(completions)
        self._ask = ask
        self._table = table

    def lag(self, positions: list[str]) -> str:
        position = change_range.latest_position(*positions) or ""
        behind = sum(1 for completed in self.completions if completed > position)
        return f"up to the commit completed {instant_time(position)}" + (
            ", up to date" if behind == 0 else f", {behind} commit(s) behind"
        )

    def latest_record(self) -> dict[str, str]:
        """The extra metadata of the latest of its recent commits that recorded positions."""
        if self._ask is None:
            return {}
        recorded: dict[str, str] = {}
        for commit in history.completed_commits(self._ask, self._table, RECORD_SCAN):
            rows = self._ask(
                "show_commit_extra_metadata", table=self._table, instant=commit["commit_time"]
            )
            recorded = {str(row["metadata_key"]): str(row["metadata_value"]) for row in rows}
            if any(key.startswith(change_range.POSITION_PREFIX) for key in recorded):
                break
        return recorded


def catalog_stats(ask: Ask, table: str, location: str, add: AddStat) -> HudiHistory:
    rows = ask("show_hudi_table_properties", table=table, limit=1000)
    properties = {str(row[0]): str(row[1]) for row in rows}
    add_table_properties(add, properties)
    commits = history.completed_commits(ask, table, TIMELINE_SCAN)
    writes = [c for c in commits if str(c["action"]) in WRITE_ACTIONS]
    if commits:
        latest = commits[0]  # newest instant first
        add(
            "latest_commit",
            "Latest commit",
            f"{latest['commit_time']} ({latest['action']}, completed "
            f"{instant_time(str(latest['state_transition_time']))})",
            "The newest completed instant on the timeline, its action and when it "
            "completed (the instant's digits are its start, in the Spark JVM's zone).",
        )
    add(
        "commits",
        "Commits",
        len(writes),
        "Completed writes (commit, deltacommit, replacecommit; a merge-on-read compaction "
        "completes as a commit) on the active timeline; archived instants are not counted.",
    )
    # (Hudi refuses to show compactions of a copy-on-write table: it has none.)
    merge_on_read = properties.get("hoodie.table.type") == "MERGE_ON_READ"
    compactions = ask("show_compaction", table=table) if merge_on_read else []
    pending = [row for row in compactions if str(row["state"]).upper() != "COMPLETED"]
    add(
        "pending_compactions",
        "Pending compactions",
        len(pending),
        "Compactions planned or in flight; a merge-on-read snapshot read merges their "
        "log files until they complete.",
    )
    file_groups = {
        (str(row["partition"]), str(row["file_id"]))
        for row in ask("show_fsview_latest", table=table)
    }
    add(
        "file_groups",
        "File groups",
        len(file_groups),
        "File groups in the latest file-system view (one base file, plus log files on "
        "merge-on-read, per group).",
    )
    if location:
        detail = ask("show_fs_path_detail", path=location)
        if detail:
            add(
                "bytes",
                "Size on disk",
                int(detail[0]["storage_size"]),
                "Bytes of every file under the table's folder: file versions the "
                "cleaner keeps, log files, the timeline and the metadata table.",
            )
    count = ask("count_rows", relation=table)
    add("rows", "Rows", int(count[0][0]), "Records a snapshot read returns.")
    completions = [str(c["state_transition_time"]) for c in writes]
    return HudiHistory(completions, ask, table)


def add_table_properties(add: AddStat, properties: Mapping[str, Any]) -> None:
    add(
        "table_type",
        "Table type",
        properties.get("hoodie.table.type", ""),
        "COPY_ON_WRITE rewrites base files on write; MERGE_ON_READ appends log files "
        "that compaction merges.",
    )
    add(
        "record_key",
        "Record key",
        properties.get("hoodie.table.recordkey.fields") or "none (append only)",
        "The fields that identify a record (hoodie.table.recordkey.fields).",
    )
    ordering = properties.get("hoodie.table.ordering.fields") or properties.get(
        "hoodie.table.precombine.field"
    )
    add(
        "ordering_field",
        "Precombine / ordering field",
        ordering or "none (the latest write wins)",
        "Of two versions of a record, the one with the greater value is kept.",
    )
    add(
        "partition_columns",
        "Partition columns",
        properties.get("hoodie.table.partition.fields") or "none",
        "The columns whose values name the table's partition folders.",
    )
