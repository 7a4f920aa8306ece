"""`index: {type: bloom|simple|bucket, buckets: N}`: how Hudi finds a record's file group.

A bucket index hashes the record key into a fixed number of file groups per
partition: no lookup cost, but the count is part of the layout and cannot change
without a rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import choice, positive_int, settings_block

INDEX_TYPES = ("bloom", "simple", "bucket")
DEFAULT_BUCKETS = 4


@dataclass(frozen=True)
class IndexConfig:
    type: Optional[str] = None  # None: Hudi's default index
    buckets: Optional[int] = None

    @classmethod
    def from_model_config(cls, model: str, raw: Any) -> "IndexConfig":
        block = settings_block(model, "index", raw, ("type", "buckets"))
        if not block:
            return cls()
        index_type = choice(model, "index.type", block.get("type"), INDEX_TYPES, None)
        if index_type is None:
            raise LakeConfigError(model, "index.type", None, f"Use one of: {', '.join(INDEX_TYPES)}.")
        buckets = positive_int(model, "index.buckets", block.get("buckets"), None)
        if index_type != "bucket" and buckets is not None:
            raise LakeConfigError(model, "index.buckets", buckets, "Buckets apply to `type: bucket` only.")
        if index_type == "bucket" and buckets is None:
            buckets = DEFAULT_BUCKETS
        return cls(index_type, buckets)

    def check_keyed(self, model: str, has_record_key: bool) -> None:
        if self.type and not has_record_key:
            raise LakeConfigError(model, "index", self.type, "An index needs a unique_key (the record key).")

    def hoodie_settings(self) -> Dict[str, str]:
        if self.type is None:
            return {}
        settings = {"hoodie.index.type": self.type.upper()}
        if self.type == "bucket":
            settings["hoodie.index.bucket.engine"] = "SIMPLE"
            settings["hoodie.bucket.index.num.buckets"] = str(self.buckets)
        return settings
