"""Settings fixed when a Hudi table is created: type, record key, precombine key,
partitioning. Hudi cannot change them in place, so a change is refused with the
advice to rebuild, instead of a silent mismatch or a "Config conflict" mid-write."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dbt.adapters.lakehouse.relation_configs import strategies
from dbt.adapters.lakehouse.relation_configs.base import Changeset, LakeSetting, LiveTable, Parsed
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import choice, column_list

TABLE_TYPES = ("cow", "mor")
DEFAULT_TABLE_TYPE = "cow"
# Hudi's names for the table types, in hoodie.properties and hoodie.* settings.
HUDI_TABLE_TYPES = {"COPY_ON_WRITE": "cow", "MERGE_ON_READ": "mor"}


def is_merge_on_read(tblproperties: Mapping[str, str]) -> bool:
    """Whether an existing table (its catalog properties) is merge-on-read:
    created with `type` mor, or recorded under Hudi's own keys."""
    written = (
        tblproperties.get("type")
        or tblproperties.get("hoodie.table.type")
        or tblproperties.get("hoodie.datasource.write.table.type")
        or ""
    )
    return HUDI_TABLE_TYPES.get(str(written).upper(), str(written).lower()) == "mor"


# The model config behind each name Hudi reads the layout under: the options of
# `CREATE TABLE ... USING hudi` and the hoodie.* keys of table and writer.
OPTION_NAMES = {
    "type": "table_type",
    "primaryKey": "unique_key",
    "preCombineField": "precombine_key",
    "orderingFields": "precombine_key",
}
HOODIE_KEYS = {
    "hoodie.table.type": "table_type",
    "hoodie.datasource.write.table.type": "table_type",
    "hoodie.table.recordkey.fields": "unique_key",
    "hoodie.datasource.write.recordkey.field": "unique_key",
    "hoodie.table.ordering.fields": "precombine_key",
    "hoodie.table.precombine.field": "precombine_key",
    "hoodie.datasource.write.precombine.field": "precombine_key",
    "hoodie.table.partition.fields": "partition_by",
    "hoodie.datasource.write.partitionpath.field": "partition_by",
}


@dataclass(frozen=True)
class TableLayout(LakeSetting):
    # Each part has a config of its own (config_for names the one to use).
    CONFIG_KEY = "table_type, unique_key, precombine_key, partition_by"
    ALIASES = frozenset(HOODIE_KEYS)

    @classmethod
    def config_for(cls, key: str) -> str:
        return HOODIE_KEYS.get(key) or OPTION_NAMES[key]

    table_type: str = DEFAULT_TABLE_TYPE
    record_key: tuple[str, ...] = ()
    precombine_key: str | None = None
    partition_by: tuple[str, ...] = ()

    @classmethod
    def from_model_config(
        cls, model: str, config: Mapping[str, Any], parsed: Parsed | None = None
    ) -> TableLayout:
        precombine = config.get("precombine_key")
        if precombine is not None and (not isinstance(precombine, str) or not precombine.strip()):
            raise LakeConfigError(model, "precombine_key", precombine, "Expected one column name.")
        return cls(
            table_type=choice(
                model, "table_type", config.get("table_type"), TABLE_TYPES, DEFAULT_TABLE_TYPE
            ),
            record_key=column_list(model, "unique_key", config.get("unique_key")),
            precombine_key=precombine.strip() if precombine else None,
            partition_by=column_list(model, "partition_by", config.get("partition_by")),
        )

    @classmethod
    def from_table(cls, table: LiveTable) -> TableLayout:
        """What an existing table was created with (its catalog properties)."""
        tblproperties = table.properties
        ordering = tblproperties.get("orderingFields") or tblproperties.get("preCombineField")
        keys = tblproperties.get("primaryKey")
        return cls(
            table_type=(tblproperties.get("type") or DEFAULT_TABLE_TYPE).lower(),
            record_key=tuple(k.strip() for k in keys.split(",")) if keys else (),
            precombine_key=ordering or None,
            partition_by=tuple(table.partition_columns),
        )

    @classmethod
    def examples(cls) -> Iterable[TableLayout]:
        return [cls()]

    def hoodie_settings(self) -> dict[str, str]:
        # The layout goes into CREATE TABLE's options (table_options), not into
        # hoodie.* settings; its hoodie.* names are owned through ALIASES.
        return {}

    @classmethod
    def block_from_hoodie(
        cls, model: str, settings: Mapping[str, str], written: Mapping[str, str]
    ) -> dict[str, Any]:
        """Model configs from layout settings under Hudi's names (option or hoodie.* key)."""
        names = {**OPTION_NAMES, **HOODIE_KEYS}
        block: dict[str, Any] = {}
        first: dict[str, str] = {}  # config: the key it was first set under
        for key, value in settings.items():
            config = names[key]
            if config == "table_type":
                value = HUDI_TABLE_TYPES.get(str(value).upper(), value)
                # Checked here, where the key the user wrote is known (table_type's
                # own check would name table_type, which the model does not set).
                if str(value).lower() not in TABLE_TYPES:
                    raise LakeConfigError(
                        model,
                        written[key],
                        settings[key],
                        f"Use one of: {', '.join(TABLE_TYPES)} (or Hudi's {', '.join(HUDI_TABLE_TYPES)}).",
                    )
            if config == "precombine_key" and "," in str(value):
                raise LakeConfigError(
                    model,
                    written[key],
                    value,
                    "dbt-lakehouse orders records by one column: set precombine_key to one column.",
                )
            if config in block and block[config] != value:
                raise LakeConfigError(
                    model,
                    written[key],
                    value,
                    f"It disagrees with {written[first[config]]} = {block[config]!r}; both set {config}. "
                    f"Set it in one place (prefer {config}).",
                )
            block[config] = value
            first.setdefault(config, key)
        return block

    def table_options(self) -> dict[str, str]:
        options = {"type": self.table_type}
        if self.record_key:
            options["primaryKey"] = ",".join(self.record_key)
        if self.precombine_key:
            options["orderingFields"] = self.precombine_key
        return options

    def diff(self, existing: TableLayout | None) -> Changeset:
        """The layout cannot change on an existing table: each part that
        differs needs a rebuild."""
        existing = existing or TableLayout()
        pairs = [
            ("table_type", existing.table_type, self.table_type),
            ("unique_key", _lower(existing.record_key), _lower(self.record_key)),
            ("precombine_key", _lower(existing.precombine_key), _lower(self.precombine_key)),
            ("partition_by", _lower(existing.partition_by), _lower(self.partition_by)),
        ]
        return Changeset(rebuild=tuple((name, old, new) for name, old, new in pairs if old != new))


def _lower(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(v.lower() for v in value)
    return value.lower() if isinstance(value, str) else value


class KeyedTable:
    """What a table config (Hudi's, Iceberg's) tells the macros of its layout,
    and the check of its key columns against what the model outputs."""

    model: str

    if TYPE_CHECKING:

        @property
        def layout(self) -> TableLayout: ...

    @property
    def table_type(self) -> str:
        return self.layout.table_type

    @property
    def record_key(self) -> tuple[str, ...]:
        return self.layout.record_key

    @property
    def precombine_key(self) -> str | None:
        return self.layout.precombine_key

    @property
    def partition_by(self) -> tuple[str, ...]:
        return self.layout.partition_by

    @property
    def default_strategy(self) -> str:
        return strategies.default(bool(self.record_key)).name

    def strategy(self, name: str) -> strategies.Strategy:
        """What the strategy does and allows (strategies.STRATEGIES)."""
        return strategies.STRATEGIES[name]

    def checked_strategy(self, name: str, key_is: str) -> strategies.Strategy:
        """The strategy, refused when it needs a unique_key and the model has
        none (`key_is`: what the key is on this format)."""
        strategy = self.strategy(name)
        if strategy.needs_key and not self.record_key:
            raise LakeConfigError(
                self.model,
                "unique_key",
                None,
                f"incremental_strategy '{name}' needs a unique_key ({key_is}).",
            )
        return strategy

    def check_columns(self, columns: Iterable[str]) -> None:
        """Every key column must be one the model's SELECT outputs."""
        available = {c.lower() for c in columns}
        used = [("unique_key", c) for c in self.record_key]
        used += [("partition_by", c) for c in self.partition_by]
        used += [("precombine_key", self.precombine_key)] if self.precombine_key else []
        for key, column in used:
            if column.lower() not in available:
                raise LakeConfigError(
                    self.model,
                    key,
                    column,
                    "The model does not output that column; it outputs: "
                    f"{', '.join(sorted(available))}.",
                )
