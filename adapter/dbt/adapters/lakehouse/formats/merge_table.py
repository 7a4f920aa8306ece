"""A model's configs for a table of a format written by SQL MERGE (Iceberg's,
Delta's), parsed and validated in one place; each format's table_config.py
says what it makes of them.

The configs mean what they mean on Hudi (config_support.py has the table):
`unique_key` and `precombine_key` drive the MERGE that the macros
(materializations/merge_write.sql) write. Neither format keeps a record key
of its own, so the table records the keys it was built with in its
properties, and a model whose keys or partitioning changed is refused until a
full refresh, as on Hudi.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dbt.adapters.lakehouse.formats import config_support
from dbt.adapters.lakehouse.relation_configs.cleaning import CleaningConfig
from dbt.adapters.lakehouse.relation_configs.compaction import CompactionConfig
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import positive_int, stringify
from dbt.adapters.lakehouse.relation_configs.table_layout import KeyedTable, TableLayout

# Where the table keeps the settings the format has no place for.
KEY_PROPERTY = "lakehouse.unique_key"
PRECOMBINE_PROPERTY = "lakehouse.precombine_key"


@dataclass(frozen=True)
class MergeTableConfig(KeyedTable):
    format: ClassVar[str]
    # What the format's cleaning keeps whole: "snapshot", "version".
    position: ClassVar[str]

    model: str
    layout: TableLayout = field(default_factory=TableLayout)
    buckets: int | None = None
    compaction: CompactionConfig = field(default_factory=CompactionConfig)
    cleaning: CleaningConfig = field(default_factory=CleaningConfig)
    delete_condition: str | None = None
    user_properties: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_model_config(cls, model: str, config: Mapping[str, Any]) -> MergeTableConfig:
        config_support.check(model, cls.format, config)
        layout = TableLayout.from_model_config(model, config)
        delete_condition = config.get("delete_condition")
        if delete_condition is not None and (
            not isinstance(delete_condition, str) or not delete_condition.strip()
        ):
            raise LakeConfigError(
                model, "delete_condition", delete_condition, "Expected a SQL boolean expression."
            )
        properties = config.get("tblproperties") or {}
        if not isinstance(properties, Mapping):
            raise LakeConfigError(
                model, "tblproperties", properties, "Expected a mapping of property to value."
            )
        # Parsed as for Hudi (the same keys, values and checks), then what
        # the format has no way to do is refused.
        cleaning = CleaningConfig.from_model_config(model, config, {})
        cls.check_cleaning(model, cleaning)
        lake = cls(
            model=model,
            layout=layout,
            buckets=_buckets(model, cls.format, config.get("index"), layout),
            compaction=CompactionConfig.from_model_config(model, config, {TableLayout: layout}),
            cleaning=cleaning,
            delete_condition=delete_condition.strip() if delete_condition else None,
            user_properties={str(k): stringify(v) for k, v in properties.items()},
        )
        lake.check_user_properties()
        return lake

    def resolve_strategy(self, name: str) -> str:
        """The strategy a write runs: `name`, checked, or the one it runs as
        without a unique_key (a merge with no key appends)."""
        config_support.check_strategy(self.model, self.format, name)
        strategy = self.checked_strategy(name, key_is="the MERGE's key")
        if self.delete_condition and not (strategy.deletes and self.record_key):
            raise LakeConfigError(
                self.model,
                "delete_condition",
                self.delete_condition,
                "Deletes need a unique_key and incremental_strategy 'upsert' or 'merge', "
                f"not '{name}'.",
            )
        return strategy.without_key if strategy.without_key and not self.record_key else name

    # --- the table -----------------------------------------------------------

    def partition_fields(self) -> list[str]:
        """The PARTITIONED BY fields: identity columns, then the key's bucket."""
        fields = list(self.partition_by)
        if self.buckets:
            fields.append(f"bucket({self.buckets}, {', '.join(self.record_key)})")
        return fields

    @classmethod
    def check_cleaning(cls, model: str, cleaning: CleaningConfig) -> None:
        """Refuses a cleaning the format cannot do: it keeps whole snapshots
        (Delta: versions), not file versions."""
        if cleaning.policy == "keep_latest_file_versions":
            raise LakeConfigError(
                model,
                "cleaning.policy",
                cleaning.policy,
                f"{cls.format.capitalize()} keeps the files of whole {cls.position}s, not file "
                f"versions: use keep_latest_commits ({cls.position}s) or keep_latest_by_hours.",
            )

    def format_properties(self) -> dict[str, str]:
        """The format's own properties for the configs (table_type, ...)."""
        raise NotImplementedError

    # Properties format_properties sets that tblproperties may set otherwise.
    free_properties: ClassVar[tuple[str, ...]] = ()

    def check_user_properties(self) -> None:
        """A table property the configs decide (table_type's, what change
        reads need) is refused in tblproperties with another value: it would
        win over the config without a word."""
        owned = {k: v for k, v in self.format_properties().items() if k not in self.free_properties}
        for key, value in self.user_properties.items():
            if key in owned and owned[key] != value:
                raise LakeConfigError(
                    self.model,
                    f"tblproperties.{key}",
                    value,
                    f"The adapter sets it to '{owned[key]}' for table_type = "
                    f"'{self.table_type}' on file_format '{self.format}' (and what change "
                    "reads need): prefer table_type, and remove it from tblproperties.",
                )

    def table_properties(self) -> dict[str, str]:
        own = self.format_properties()
        if self.record_key:
            own[KEY_PROPERTY] = ",".join(self.record_key)
        if self.precombine_key:
            own[PRECOMBINE_PROPERTY] = self.precombine_key
        return {**own, **self.user_properties}

    def changes(
        self, tblproperties: Mapping[str, str], partition_fields: list[str]
    ) -> dict[str, str]:
        """The properties to set on an existing table; refuses, naming the
        config, a change of what cannot change under the MERGE's feet."""
        pairs = [
            ("unique_key", tblproperties.get(KEY_PROPERTY, ""), ",".join(self.record_key)),
            (
                "precombine_key",
                tblproperties.get(PRECOMBINE_PROPERTY, ""),
                self.precombine_key or "",
            ),
            ("partition_by", _fields(partition_fields), _fields(self.partition_fields())),
        ]
        for key, old, new in pairs:
            if old.lower() != new.lower():
                raise LakeConfigError(
                    self.model,
                    key,
                    new or None,
                    f"The table was built with {key} {old or 'unset'}: run with --full-refresh "
                    "to rebuild it with the new one.",
                )
        wanted = self.table_properties()
        return {k: v for k, v in wanted.items() if tblproperties.get(k) != v}


def _buckets(model: str, fmt: str, index: Any, layout: TableLayout) -> int | None:
    if index is None or index == {}:
        return None
    kind = index.get("type") if isinstance(index, Mapping) else None
    if kind != "bucket" or set(index) - {"type", "buckets"}:
        raise LakeConfigError(model, "index", index, config_support.Support("index").instead(fmt))
    if not layout.record_key:
        raise LakeConfigError(
            model, "index", index, "A bucket index buckets the unique_key: set unique_key too."
        )
    return positive_int(model, "index.buckets", index.get("buckets"), 16)


def _fields(fields: Iterable[str]) -> str:
    """Partition fields compared without spaces or case (Spark's DESCRIBE
    writes `bucket(4, id)`, a model may write `bucket(4,id)`)."""
    return ",".join(f.replace(" ", "").lower() for f in fields)
