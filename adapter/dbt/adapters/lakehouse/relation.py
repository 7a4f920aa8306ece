"""The adapter's relations: dbt-spark's, with a Spark catalog as the database.

dbt-spark has no database: every relation is `schema.table` in the session
catalog, which names every format's tables here (formats/registry.py). An
Iceberg model that names another catalog in `database` has that catalog as
its database and renders as `catalog.schema.table`; a relation without one
renders as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dbt.adapters.contracts.relation import Policy
from dbt.adapters.spark.relation import SparkIncludePolicy, SparkRelation


@dataclass
class LakehouseIncludePolicy(SparkIncludePolicy):
    # Rendered when set: None (the session catalog) is left out by dbt's render.
    database: bool = True


@dataclass(frozen=True, eq=False, repr=False)
class LakehouseRelation(SparkRelation):
    include_policy: Policy = field(default_factory=lambda: LakehouseIncludePolicy())

    def __post_init__(self) -> None:
        # dbt-spark refuses any database; here it names the table's catalog.
        # dbt gives Spark nodes an empty one: the session catalog, which is
        # None in the relations a schema's listing makes, so one relation
        # has one key in dbt's relation cache.
        if self.path.database == "":
            object.__setattr__(self, "path", replace(self.path, database=None))

    def render(self) -> str:
        # dbt-spark's render refuses database and schema both included.
        return super(SparkRelation, self).render()
