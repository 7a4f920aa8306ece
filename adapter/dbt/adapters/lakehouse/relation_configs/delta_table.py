"""A Delta model's configs (merge_table.py parses them; format_support.py has
the table): `table_type: mor` turns on Delta's deletion vectors (an update or
delete marks rows in a small file instead of rewriting the data file; `cow`
leaves them off), and every table records its Change Data Feed, which change
reads of it will read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.merge_table import MergeTableConfig

DELETION_VECTORS = "delta.enableDeletionVectors"
CHANGE_DATA_FEED = "delta.enableChangeDataFeed"


@dataclass(frozen=True)
class DeltaTableConfig(MergeTableConfig):
    format = "delta"
    # What VACUUM keeps the files of.
    position = "version"

    @classmethod
    def from_model_config(cls, model: str, config: Mapping[str, Any]) -> MergeTableConfig:
        if config.get("skip_unchanged") and config.get("materialized") == "incremental":
            # (Its record would have to be in the write's own commit, with the
            # ranges it read: what change reads into Delta will record.)
            raise LakeConfigError(
                model,
                "skip_unchanged",
                config["skip_unchanged"],
                "On file_format 'delta' it applies to table models only, for now (an "
                "incremental Delta model records no read positions yet): remove it, or make "
                "the model file_format 'hudi' or 'iceberg'.",
            )
        return super().from_model_config(model, config)

    def format_properties(self) -> dict[str, str]:
        return {
            DELETION_VECTORS: "true" if self.table_type == "mor" else "false",
            CHANGE_DATA_FEED: "true",
        }
