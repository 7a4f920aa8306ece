"""One small class per kind of table setting, composed by HudiTableConfig."""

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError  # noqa: F401
from dbt.adapters.lakehouse.relation_configs.hudi_table import HudiTableConfig  # noqa: F401
