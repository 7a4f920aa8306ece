"""What dbt docs' catalog shows of an Iceberg table (formats/table_format.py's
catalog_stats): its snapshots, what its current snapshot's summary counts, and
its ancestry for its consumers' lag."""

from __future__ import annotations

from dbt.adapters.lakehouse.formats.iceberg.history import Ancestry
from dbt.adapters.lakehouse.formats.table_format import AddStat, Lake

SUMMARY_STATS = (
    ("files", "Data files", "total-data-files", "Data files of the current snapshot."),
    (
        "delete_files",
        "Delete files",
        "total-delete-files",
        "Delete files of the current snapshot: merge-on-read reads apply them until "
        "a compaction rewrites their data files.",
    ),
    ("bytes", "Size of data", "total-files-size", "Bytes of the current snapshot's files."),
    ("rows", "Rows", "total-records", "Records of the current snapshot's data files."),
)


def catalog_stats(lake: Lake, table: str, add: AddStat) -> Ancestry:
    rows = lake.ask("iceberg_snapshot_stats", table=table)
    # The current snapshot: the newest, unless a rollback made an older one current.
    current = lake.table_properties(table).get("current-snapshot-id")
    summary = next((r for r in rows if str(r["snapshot_id"]) == current), None)
    add("commits", "Snapshots", len(rows), "Snapshots not expired (one a write).")
    if summary is not None:
        add(
            "latest_commit",
            "Latest snapshot",
            f"{summary['snapshot_id']} ({summary['operation']}, committed {summary['committed_at']})",
            "The table's current snapshot, its operation and when it was committed.",
        )
        for stat_id, label, key, description in SUMMARY_STATS:
            if summary[key] is not None:
                add(stat_id, label, int(summary[key]), description)
    return Ancestry.from_rows(lake.ask("iceberg_ancestry", table=table))
