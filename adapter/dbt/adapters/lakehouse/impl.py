"""The adapter class: dbt-spark's, with Hudi as the default format and its configs typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple, Union

from dbt.adapters.base.meta import available
from dbt.adapters.base.relation import BaseRelation
from dbt.adapters.spark.impl import SparkAdapter, SparkConfig

from dbt.adapters.lakehouse.connections import LakehouseConnectionManager
from dbt.adapters.lakehouse.relation_configs import HudiTableConfig


@dataclass
class LakehouseConfig(SparkConfig):
    file_format: str = "hudi"
    table_type: Optional[str] = None
    precombine_key: Optional[str] = None
    partition_by: Optional[Union[List[str], str]] = None
    index: Optional[Dict[str, Any]] = None
    compaction: Optional[Dict[str, Any]] = None
    cleaning: Optional[Dict[str, Any]] = None
    hudi_options: Optional[Dict[str, Any]] = None
    delete_condition: Optional[str] = None


class LakehouseAdapter(SparkAdapter):
    ConnectionManager = LakehouseConnectionManager  # type: ignore[assignment]
    AdapterSpecificConfigs = LakehouseConfig  # type: ignore[assignment]

    @classmethod
    def type(cls) -> str:
        return "lakehouse"

    def valid_incremental_strategies(self) -> List[str]:
        return ["append", "merge", "upsert", "insert_overwrite"]

    @available
    def hudi_config(self, model: Dict[str, Any]) -> HudiTableConfig:
        """The model's lake configs, validated (raises a compilation error naming the model)."""
        return HudiTableConfig.from_model_config(model["name"], model.get("config", {}))

    @available
    def hudi_table_settings(self, relation: BaseRelation) -> Tuple[Dict[str, str], List[str]]:
        """(catalog table properties, partition columns) of an existing table."""
        _, props = self.execute(f"show tblproperties {relation}", fetch=True)
        _, described = self.execute(f"describe table extended {relation}", fetch=True)
        partitions: List[str] = []
        in_partitions = False
        for row in described:
            name = (row[0] or "").strip()
            if name == "# Partition Information":
                in_partitions = True
            elif in_partitions and (not name or name.startswith("# Detailed")):
                break
            elif in_partitions and not name.startswith("#"):
                partitions.append(name)
        return {row[0]: row[1] for row in props}, partitions
