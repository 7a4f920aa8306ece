"""What dbt docs' catalog shows of a Delta table (formats/table_format.py's
catalog_stats): its versions, its files and bytes now, its rows, and its
history for its consumers' lag."""

from __future__ import annotations

from dbt.adapters.lakehouse.formats.delta.history import History
from dbt.adapters.lakehouse.formats.table_format import AddStat, Lake


def catalog_stats(lake: Lake, table: str, add: AddStat) -> History:
    history = lake.ask("delta_history", table=table)
    add(
        "commits",
        "Versions",
        len(history),
        "Versions in the table's history (one a write; VACUUM removes files, not versions).",
    )
    if history:
        latest = history[0]
        add(
            "latest_commit",
            "Latest version",
            f"{latest['version']} ({latest['operation']}, committed {latest['timestamp']})",
            "The table's current version, its operation and when it was committed.",
        )
    detail = lake.ask("delta_detail", table=table)
    if detail:
        add("files", "Data files", int(detail[0]["numFiles"]), "Files of the current version.")
        add("bytes", "Size of data", int(detail[0]["sizeInBytes"]), "Bytes of those files.")
    count = lake.ask("count_rows", relation=table)
    add("rows", "Rows", int(count[0][0]), "Rows a read of the current version returns.")
    return History.from_rows(history)
