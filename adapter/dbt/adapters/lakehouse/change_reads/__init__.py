"""Change reads: a model reads what an upstream lake table committed since the
model's last run, exactly once (`lake_changes`, `lake_changed_keys`,
`lake_signed_changes` in macros/change_reads/).

- planner.py: planning a run's ranges against the lake, and recording them;
- queries.py: which relation reads a range (its SQL: macros/statements/change_reads.sql).

What a range is, and what every format shares of one, is
formats/change_range.py; how each format plans and reads one, its
TableFormat's change_history and change_source (formats/table_format.py).
May import: lake/, formats/, relation_configs/, statements.
"""

from dbt.adapters.lakehouse.change_reads.planner import ChangeReadPlanner
from dbt.adapters.lakehouse.formats.change_range import COMMIT_META_PREFIX, ChangeRead
from dbt.adapters.lakehouse.formats.hudi.change_ranges import Timeline, plan_read

__all__ = ["COMMIT_META_PREFIX", "ChangeRead", "ChangeReadPlanner", "Timeline", "plan_read"]
