"""Settings fixed when a Hudi table is created: type, record key, precombine key,
partitioning. Hudi cannot change them in place, so a change is refused with the
advice to rebuild, instead of a silent mismatch or a "Config conflict" mid-write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import choice, column_list

TABLE_TYPES = ("cow", "mor")
DEFAULT_TABLE_TYPE = "cow"


@dataclass(frozen=True)
class TableLayout:
    table_type: str = DEFAULT_TABLE_TYPE
    record_key: Tuple[str, ...] = ()
    precombine_key: Optional[str] = None
    partition_by: Tuple[str, ...] = ()

    @classmethod
    def from_model_config(cls, model: str, config: Mapping[str, Any]) -> "TableLayout":
        precombine = config.get("precombine_key")
        if precombine is not None and (not isinstance(precombine, str) or not precombine.strip()):
            raise LakeConfigError(model, "precombine_key", precombine, "Expected one column name.")
        return cls(
            table_type=choice(model, "table_type", config.get("table_type"), TABLE_TYPES, DEFAULT_TABLE_TYPE),
            record_key=column_list(model, "unique_key", config.get("unique_key")),
            precombine_key=precombine.strip() if precombine else None,
            partition_by=column_list(model, "partition_by", config.get("partition_by")),
        )

    @classmethod
    def from_table(cls, tblproperties: Mapping[str, str], partition_columns: Sequence[str]) -> "TableLayout":
        """What an existing table was created with (its catalog properties)."""
        ordering = tblproperties.get("orderingFields") or tblproperties.get("preCombineField")
        keys = tblproperties.get("primaryKey")
        return cls(
            table_type=(tblproperties.get("type") or DEFAULT_TABLE_TYPE).lower(),
            record_key=tuple(k.strip() for k in keys.split(",")) if keys else (),
            precombine_key=ordering or None,
            partition_by=tuple(partition_columns),
        )

    def table_options(self) -> Dict[str, str]:
        options = {"type": self.table_type}
        if self.record_key:
            options["primaryKey"] = ",".join(self.record_key)
        if self.precombine_key:
            options["orderingFields"] = self.precombine_key
        return options

    def changes_from(self, existing: "TableLayout") -> List[Tuple[str, Any, Any]]:
        """(config, on the table, in the model) for each setting that differs."""
        changed = []
        pairs = [
            ("table_type", existing.table_type, self.table_type),
            ("unique_key", _lower(existing.record_key), _lower(self.record_key)),
            ("precombine_key", _lower(existing.precombine_key), _lower(self.precombine_key)),
            ("partition_by", _lower(existing.partition_by), _lower(self.partition_by)),
        ]
        for name, old, new in pairs:
            if old != new:
                changed.append((name, old, new))
        return changed


def _lower(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(v.lower() for v in value)
    return value.lower() if isinstance(value, str) else value
