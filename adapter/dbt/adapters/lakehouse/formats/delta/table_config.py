"""A Delta model's configs (merge_table.py parses them; config_support.py has
the table): `table_type: mor` turns on Delta's deletion vectors (an update or
delete marks rows in a small file instead of rewriting the data file; `cow`
leaves them off), and every table records its Change Data Feed, which change
reads of it read (formats/delta/change_ranges.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from dbt.adapters.lakehouse.formats.merge_table import MergeTableConfig

DELETION_VECTORS = "delta.enableDeletionVectors"
CHANGE_DATA_FEED = "delta.enableChangeDataFeed"


@dataclass(frozen=True)
class DeltaTableConfig(MergeTableConfig):
    format = "delta"
    # What VACUUM keeps the files of.
    position = "version"

    def format_properties(self) -> dict[str, str]:
        return {
            DELETION_VECTORS: "true" if self.table_type == "mor" else "false",
            CHANGE_DATA_FEED: "true",
        }
