"""The adapter class: dbt-spark's, with Hudi as the default format and its configs typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

from dbt.adapters.base.meta import available
from dbt.adapters.spark.impl import SparkAdapter, SparkConfig

from dbt.adapters.lakehouse.connections import LakehouseConnectionManager
from dbt.adapters.lakehouse.hudi_config import HudiTableConfig


@dataclass
class LakehouseConfig(SparkConfig):
    file_format: str = "hudi"
    table_type: Optional[str] = None
    precombine_key: Optional[str] = None
    hudi_options: Optional[Dict[str, Any]] = None
    partition_by: Optional[Union[List[str], str]] = None


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
