"""The lake-format configs of one model, parsed and validated in one place.

Macros never build Hudi option names themselves: they ask this object for the
options of the CREATE TABLE and the settings of a write. Every mistake is
reported with the model's name, the config key, the value and what is allowed,
because Hudi itself silently ignores option names it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from dbt_common.exceptions import CompilationError

TABLE_TYPES = ("cow", "mor")
DEFAULT_TABLE_TYPE = "cow"
STRATEGIES_NEEDING_KEY = ("merge", "upsert")
# Hudi write operation behind each incremental strategy. `append` is a plain
# insert: no index lookup and no dedup, the cheap path for logs.
WRITE_OPERATIONS = {
    "append": "insert",
    "upsert": "upsert",
    "merge": "upsert",
    "insert_overwrite": "insert_overwrite",
}


class LakeConfigError(CompilationError):
    """A lake-format config of a model is wrong; the message says how to fix it."""

    def __init__(self, model: str, key: str, value: Any, allowed: str) -> None:
        self.model, self.key, self.value = model, key, value
        super().__init__(
            f"Model '{model}': config '{key}' = {value!r} is not valid. {allowed}"
        )


def _column_list(model: str, key: str, value: Any) -> Tuple[str, ...]:
    """A column or list of columns, as written in dbt configs, to a tuple of names."""
    if value is None:
        return ()
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",")]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = [v.strip() for v in value]
    else:
        raise LakeConfigError(model, key, value, "Expected a column name or a list of column names.")
    if not names or any(not n for n in names):
        raise LakeConfigError(model, key, value, "Column names must not be empty.")
    return tuple(names)


def _stringify(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class HudiTableConfig:
    model: str
    table_type: str = DEFAULT_TABLE_TYPE
    record_key: Tuple[str, ...] = ()
    precombine_key: Optional[str] = None
    partition_by: Tuple[str, ...] = ()
    hudi_options: Dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_model_config(cls, model: str, config: Mapping[str, Any]) -> "HudiTableConfig":
        table_type = config.get("table_type") or DEFAULT_TABLE_TYPE
        if not isinstance(table_type, str) or table_type.lower() not in TABLE_TYPES:
            raise LakeConfigError(
                model, "table_type", table_type, f"Use one of: {', '.join(TABLE_TYPES)}."
            )
        precombine = config.get("precombine_key")
        if precombine is not None and (not isinstance(precombine, str) or not precombine.strip()):
            raise LakeConfigError(model, "precombine_key", precombine, "Expected one column name.")
        return cls(
            model=model,
            table_type=table_type.lower(),
            record_key=_column_list(model, "unique_key", config.get("unique_key")),
            precombine_key=precombine.strip() if precombine else None,
            partition_by=_column_list(model, "partition_by", config.get("partition_by")),
            hudi_options=cls._parse_hudi_options(model, config.get("hudi_options")),
        )

    @staticmethod
    def _parse_hudi_options(model: str, raw: Any) -> Dict[str, str]:
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            raise LakeConfigError(model, "hudi_options", raw, "Expected a mapping of hoodie.* keys to values.")
        options = {}
        for key, value in raw.items():
            if not isinstance(key, str) or not key.startswith("hoodie."):
                raise LakeConfigError(
                    model,
                    "hudi_options",
                    key,
                    "Only hoodie.* keys are passed through; use table_type, unique_key, "
                    "precombine_key and partition_by for the table's type, keys and partitioning.",
                )
            options[key] = _stringify(value)
        return options

    # --- checks that need more than the config itself -------------------------

    def check_strategy(self, strategy: str) -> None:
        if strategy in STRATEGIES_NEEDING_KEY and not self.record_key:
            raise LakeConfigError(
                self.model,
                "unique_key",
                None,
                f"incremental_strategy '{strategy}' needs a unique_key (the Hudi record key).",
            )

    def check_columns(self, columns: Iterable[str]) -> None:
        """Every key column must be one the model's SELECT outputs."""
        available = {c.lower() for c in columns}
        used = [("unique_key", c) for c in self.record_key]
        used += [("partition_by", c) for c in self.partition_by]
        if self.precombine_key:
            used.append(("precombine_key", self.precombine_key))
        for key, column in used:
            if column.lower() not in available:
                raise LakeConfigError(
                    self.model,
                    key,
                    column,
                    f"The model does not output that column; it outputs: {', '.join(sorted(available))}.",
                )

    # --- what macros render ---------------------------------------------------

    def table_options(self) -> Dict[str, str]:
        """Options of `CREATE TABLE ... USING hudi OPTIONS (...)`."""
        options = {"type": self.table_type}
        if self.record_key:
            options["primaryKey"] = ",".join(self.record_key)
        if self.precombine_key:
            options["orderingFields"] = self.precombine_key
        options.update(self.hudi_options)
        return options

    def write_settings(self, strategy: str) -> Dict[str, str]:
        """Session settings for one write (`SET k=v` before it, `RESET k` after)."""
        settings = dict(self.hudi_options)
        settings["hoodie.spark.sql.insert.into.operation"] = WRITE_OPERATIONS[strategy]
        return settings

    def partition_columns(self) -> List[str]:
        return list(self.partition_by)
