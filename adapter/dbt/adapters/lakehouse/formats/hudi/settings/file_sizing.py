"""`file_sizing: {max_file_mb: N, small_file_mb: N}`: the size of the base files Hudi writes.

max_file_mb    a base file is closed at this size and the next one begun
               (Hudi's default 120)
small_file_mb  a base file under this size takes the next inserts of its
               partition, so that small batches grow files instead of adding
               them (Hudi's default 100; 0 turns it off)
Unset, Hudi's defaults apply. Both can change on an existing table: the next
write sizes its files by the new values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dbt.adapters.lakehouse.relation_configs.base import LakeSetting, Parsed, hoodie_int
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import positive_int, settings_block

MAX_FILE = "hoodie.parquet.max.file.size"
SMALL_FILE = "hoodie.parquet.small.file.limit"
MB = 1024 * 1024
KEYS = ("max_file_mb", "small_file_mb")


@dataclass(frozen=True)
class FileSizingConfig(LakeSetting):
    CONFIG_KEY = "file_sizing"

    max_file_mb: int | None = None
    small_file_mb: int | None = None

    @classmethod
    def from_model_config(
        cls, model: str, config: Mapping[str, Any], parsed: Parsed
    ) -> FileSizingConfig:
        block = settings_block(model, "file_sizing", config.get("file_sizing"), KEYS)
        largest = positive_int(model, "file_sizing.max_file_mb", block.get("max_file_mb"), None)
        small = block.get("small_file_mb")
        if small is not None and (
            isinstance(small, bool) or not isinstance(small, int) or small < 0
        ):
            raise LakeConfigError(
                model, "file_sizing.small_file_mb", small, "Expected a whole number of at least 0."
            )
        if largest is not None and small is not None and small >= largest:
            raise LakeConfigError(
                model,
                "file_sizing.small_file_mb",
                small,
                f"A small file is one under max_file_mb ({largest}): make it smaller.",
            )
        return cls(largest, small)

    @classmethod
    def examples(cls) -> Iterable[FileSizingConfig]:
        return [cls(120, 100)]

    def hoodie_settings(self) -> dict[str, str]:
        settings = {}
        if self.max_file_mb is not None:
            settings[MAX_FILE] = str(self.max_file_mb * MB)
        if self.small_file_mb is not None:
            settings[SMALL_FILE] = str(self.small_file_mb * MB)
        return settings

    @classmethod
    def block_from_hoodie(
        cls, model: str, settings: Mapping[str, str], written: Mapping[str, str]
    ) -> dict[str, Any]:
        block: dict[str, Any] = {}
        for key, name in ((MAX_FILE, "max_file_mb"), (SMALL_FILE, "small_file_mb")):
            if key in settings:
                size = hoodie_int(model, written[key], settings[key])
                if size % MB:
                    raise LakeConfigError(
                        model,
                        written[key],
                        settings[key],
                        f"Give it in whole megabytes with file_sizing: {{{name}: N}}.",
                    )
                block[name] = size // MB
        return block
