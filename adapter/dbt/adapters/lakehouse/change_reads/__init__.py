"""Change reads: a model reads what an upstream lake table committed since the
model's last run, exactly once (`lake_changes`, `lake_changed_keys`,
`lake_signed_changes` in macros/change_reads/).

- ranges.py: what a range is and how one is chosen (positions, gaps);
- planner.py: planning a run's ranges against the lake, and recording them;
- queries.py: which relation reads a range (its SQL: macros/statements/change_reads.sql).

Iceberg's and Delta's ranges are their packages' (formats/<format>/change_ranges.py).
May import: lake/, formats/, relation_configs/, statements.
"""

from dbt.adapters.lakehouse.change_reads.planner import ChangeReadPlanner
from dbt.adapters.lakehouse.change_reads.ranges import (
    COMMIT_META_PREFIX,
    ChangeRead,
    Timeline,
    plan_read,
)

__all__ = ["COMMIT_META_PREFIX", "ChangeRead", "ChangeReadPlanner", "Timeline", "plan_read"]
