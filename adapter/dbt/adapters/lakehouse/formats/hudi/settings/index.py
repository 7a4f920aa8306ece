"""`index: {type: bloom|simple|bucket, buckets: N}`: how Hudi finds a record's file group.

A bucket index hashes the record key into a fixed number of file groups per
partition: no lookup cost, but the count is part of the layout and cannot change
without a rebuild.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dbt.adapters.lakehouse.relation_configs.base import (
    Changeset,
    LakeSetting,
    LiveTable,
    Parsed,
    hoodie_int,
)
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import choice, positive_int, settings_block
from dbt.adapters.lakehouse.relation_configs.table_layout import TableLayout

INDEX_TYPES = ("bloom", "simple", "bucket")
DEFAULT_BUCKETS = 4


INDEX_TYPE = "hoodie.index.type"
BUCKET_ENGINE = "hoodie.index.bucket.engine"
BUCKETS = "hoodie.bucket.index.num.buckets"


@dataclass(frozen=True)
class IndexConfig(LakeSetting):
    CONFIG_KEY = "index"
    # Hudi also reads the bucket count's hash field and its older name.
    ALIASES = frozenset(
        {
            "hoodie.bucket.index.hash.field",
            "hoodie.bucket.index.max.num.buckets",
            "hoodie.bucket.index.min.num.buckets",
        }
    )

    type: str | None = None  # None: Hudi's default index
    buckets: int | None = None

    @classmethod
    def from_model_config(
        cls, model: str, config: Mapping[str, Any], parsed: Parsed
    ) -> IndexConfig:
        index = cls._read(model, config.get("index"))
        layout = parsed.get(TableLayout)
        if index.type and isinstance(layout, TableLayout) and not layout.record_key:
            raise LakeConfigError(
                model,
                "index",
                index.type,
                "An index needs a unique_key (the record key): set unique_key, or remove index.",
            )
        return index

    @classmethod
    def _read(cls, model: str, raw: Any) -> IndexConfig:
        block = settings_block(model, "index", raw, ("type", "buckets"))
        if not block:
            return cls()
        index_type = choice(model, "index.type", block.get("type"), INDEX_TYPES, None)
        if index_type is None:
            raise LakeConfigError(
                model, "index.type", None, f"Use one of: {', '.join(INDEX_TYPES)}."
            )
        buckets = positive_int(model, "index.buckets", block.get("buckets"), None)
        if index_type != "bucket" and buckets is not None:
            raise LakeConfigError(
                model, "index.buckets", buckets, "Buckets apply to `type: bucket` only."
            )
        if index_type == "bucket" and buckets is None:
            buckets = DEFAULT_BUCKETS
        return cls(index_type, buckets)

    @classmethod
    def from_table(cls, table: LiveTable) -> IndexConfig:
        """The index the table records; none recorded: Hudi's default (not
        bucket). A bucket count recorded alone means a bucket index."""
        props = table.properties
        recorded = props.get(INDEX_TYPE) or ("BUCKET" if BUCKETS in props else None)
        buckets = props.get(BUCKETS)
        return cls(
            recorded.lower() if recorded else None,
            int(buckets) if buckets and buckets.strip().isdigit() else None,
        )

    def diff(self, existing: IndexConfig | None) -> Changeset:
        """The model's index against the table's. A bucket index lays out
        file groups by hash, so adding one to a table without it, or
        dropping it, needs a rebuild, as does another bucket count or index
        type; a model that names no index keeps the table's. What can change
        in place is set in place."""
        if self.type is None:
            return Changeset()
        existing = existing or IndexConfig()
        if existing.type is not None and existing.type != self.type:
            rebuild = (("index", existing.type.upper(), self.type.upper()),)
        elif existing.type is None and self.type == "bucket":
            rebuild = (("index", "Hudi's default (not bucket)", "BUCKET"),)
        elif existing.buckets and self.buckets and existing.buckets != self.buckets:
            rebuild = (("index", str(existing.buckets), str(self.buckets)),)
        else:
            return super().diff(existing)
        return Changeset(rebuild=rebuild)

    @classmethod
    def examples(cls) -> Iterable[IndexConfig]:
        return [cls(t, DEFAULT_BUCKETS if t == "bucket" else None) for t in INDEX_TYPES]

    def hoodie_settings(self) -> dict[str, str]:
        if self.type is None:
            return {}
        settings = {INDEX_TYPE: self.type.upper()}
        if self.type == "bucket":
            # The simple bucket engine: a fixed count, which is why the count
            # is part of the layout (see diff).
            settings[BUCKET_ENGINE] = "SIMPLE"
            settings[BUCKETS] = str(self.buckets)
        return settings

    @classmethod
    def block_from_hoodie(
        cls, model: str, settings: Mapping[str, str], written: Mapping[str, str]
    ) -> dict[str, Any]:
        unsupported = sorted(set(settings) - {INDEX_TYPE, BUCKETS, BUCKET_ENGINE})
        if unsupported or str(settings.get(BUCKET_ENGINE, "SIMPLE")).upper() != "SIMPLE":
            key = unsupported[0] if unsupported else BUCKET_ENGINE
            raise LakeConfigError(
                model,
                written[key],
                settings[key],
                "The `index` config sets Hudi's index (type bloom|simple|bucket, with a fixed bucket count); "
                "other index settings are not supported.",
            )
        block: dict[str, Any] = {}
        if INDEX_TYPE in settings:
            block["type"] = str(settings[INDEX_TYPE]).lower()
        if BUCKETS in settings:
            block["buckets"] = hoodie_int(model, written[BUCKETS], settings[BUCKETS])
        return block
