"""An Iceberg model's configs (merge_table.py parses them; config_support.py
has the table): `table_type` picks Iceberg's copy-on-write or merge-on-read
for updates, deletes and merges, and `index: {type: bucket}` is a bucket
partition field on the unique_key.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbt.adapters.lakehouse.formats.merge_table import (
    KEY_PROPERTY,
    PRECOMBINE_PROPERTY,
    MergeTableConfig,
)

__all__ = ["KEY_PROPERTY", "PRECOMBINE_PROPERTY", "IcebergTableConfig"]

# Iceberg's row-level operations, each copy-on-write or merge-on-read.
MODES = ("write.update.mode", "write.delete.mode", "write.merge.mode")
MODE_OF_TYPE = {"cow": "copy-on-write", "mor": "merge-on-read"}
# Row-level deletes (merge-on-read) need Iceberg's format version 2.
FORMAT_VERSION = {"format-version": "2"}


@dataclass(frozen=True)
class IcebergTableConfig(MergeTableConfig):
    format = "iceberg"
    # What expire_snapshots expires.
    position = "snapshot"
    # A table may be made in another format version.
    free_properties = tuple(FORMAT_VERSION)

    def format_properties(self) -> dict[str, str]:
        mode = MODE_OF_TYPE[self.table_type]
        return {**FORMAT_VERSION, **{m: mode for m in MODES}}
