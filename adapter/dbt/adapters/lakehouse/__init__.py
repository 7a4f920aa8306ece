from dbt.adapters.base.plugin import AdapterPlugin

from dbt.adapters.lakehouse.connections import LakehouseConnectionManager  # noqa: F401
from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.impl import LakehouseAdapter
from dbt.include import lakehouse

Plugin = AdapterPlugin(
    adapter=LakehouseAdapter,  # type: ignore[arg-type]
    credentials=LakehouseCredentials,
    include_path=lakehouse.PACKAGE_PATH,
    dependencies=["spark"],
)
