"""A late-arriving record (an older version, by the ordering field, than the one
stored) changes nothing upstream, and nothing downstream either.

Hudi 1.2's incremental query on a merge-on-read table reads only the files
the range's commits wrote: a log record that lost to the stored version (in
a base file or an older log, written before the range) is not merged with it,
and comes back as if it had won (apache/hudi#18943). The upstream's snapshot
and its CDC images are right; lake_changes() keeps only the rows that are
the upstream's current records.
"""

import pytest

from dbt.adapters.lakehouse.change_reads import ChangeRead
from dbt.adapters.lakehouse.change_reads.queries import ChangeReadQueries
from dbt.adapters.lakehouse.formats.hudi.change_reads import returns_lost_writes
from dbt.adapters.lakehouse.statements import Statements

# Each run writes version v of records 1-3 and version 5 - v of record 4: record
# 4 arrives at 4, then 3, then 2, and stays at 4 (the highest version wins).
# Record 5 comes again at the same version each run: a tie goes to the later
# write, so it is rewritten and read again (as on copy-on-write). CDC is on, for
# the deltas. Partitioned by day when `partitioned` (the check of the changes
# against the snapshot reads only the days they touch).
EVENTS = """
    {{ config(materialized='incremental', table_type=var('table_type'), unique_key='id',
              precombine_key='version', partition_by=var('partition_by', none),
              compaction={'trigger': 'num_commits', 'delta_commits': var('delta_commits')}
                         if var('table_type') == 'mor' else none,
              hudi_options={'hoodie.table.cdc.enabled': true,
                            'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER'}) }}
    select id, version, version * 100 + id as cost, concat('d', id % 2) as day
    from (values (1, {{ var('v') }}), (2, {{ var('v') }}), (3, {{ var('v') }}),
                 (4, 5 - {{ var('v') }}), (5, 1)) as t(id, version)
"""

# The upstream's latest state, kept by key.
EVENTS_CHANGES = """
    {{ config(materialized='incremental', unique_key='id') }}
    select id, version, cost from {{ lake_changes(ref('events')) }} as changes
"""

# Every row each run read, appended: what a change reaches downstream.
CHANGE_LOG = """
    {{ config(materialized='incremental', incremental_strategy='append') }}
    select {{ var('v') }} as run, id, version from {{ lake_changes(ref('events')) }} as changes
"""

# Signed CDC images, appended: sum(_sign * cost) by id is each record's cost.
DELTAS = """
    {{ config(materialized='incremental', incremental_strategy='append') }}
    select id, _sign, cost from {{ lake_signed_changes(ref('events'), ['id', 'cost']) }} as changes
"""

CASES = {
    "mor": {"table_type": "mor", "delta_commits": 99},
    # Compacts after run 2: the stored version 4 is copied into a new base file.
    "mor_compacted_partitioned": {"table_type": "mor", "delta_commits": 2, "partition_by": "day"},
    "cow": {"table_type": "cow"},
}


def sorted_rows(project, query):
    return sorted(tuple(r) for r in project.rows(query))


@pytest.mark.parametrize("case", list(CASES))
def test_a_late_arrival_never_reaches_downstream(project, case):
    project.model("events", EVENTS)
    project.model("events_changes", EVENTS_CHANGES)
    project.model("change_log", CHANGE_LOG)
    project.model("deltas", DELTAS)
    expected_log = []
    for v in (1, 2, 3):
        settings = {**CASES[case], "v": v}
        project.dbt(
            "run", "--vars", "{" + ", ".join(f"{k}: {x}" for k, x in settings.items()) + "}"
        )
        snapshot = sorted_rows(project, "select id, version, cost from {schema}.events")
        assert [r[:2] for r in snapshot] == [(1, v), (2, v), (3, v), (4, 4), (5, 1)], f"run {v}"
        assert sorted_rows(project, "select id, version, cost from {schema}.events_changes") == (
            snapshot
        ), f"run {v}"
        # Each run reads the records whose current version it wrote, no other.
        expected_log += (
            [(v, i, v) for i in (1, 2, 3)] + [(v, 5, 1)] + ([(1, 4, 4)] if v == 1 else [])
        )
        assert sorted_rows(project, "select run, id, version from {schema}.change_log") == sorted(
            expected_log
        ), f"run {v}"
        assert sorted_rows(
            project, "select id, sum(_sign * cost) from {schema}.deltas group by id"
        ) == [(i, cost) for i, _, cost in snapshot], f"run {v}"
    if case.startswith("mor_compacted"):
        assert "commit" in [a for _, _, a in project.completed_instants("events")], "compacted"


# --- which reads are checked, and how (no Spark) -------------------------------


@pytest.mark.parametrize(
    "properties,checked",
    [
        ({"type": "mor", "orderingFields": "version"}, True),
        ({"type": "mor", "preCombineField": "version"}, True),
        ({"hoodie.table.type": "MERGE_ON_READ", "hoodie.table.ordering.fields": "ts"}, True),
        ({"type": "mor", "recordMergeMode": "CUSTOM"}, True),
        # The latest write wins: what the range wrote is current.
        ({"type": "mor"}, False),
        ({"type": "mor", "orderingFields": "v", "recordMergeMode": "COMMIT_TIME_ORDERING"}, False),
        # Copy-on-write merges as it writes.
        ({"type": "cow", "orderingFields": "version"}, False),
        ({"orderingFields": "version"}, False),
    ],
)
def test_reads_of_merge_on_read_tables_ordered_by_a_field_are_checked(properties, checked):
    assert returns_lost_writes(properties) is checked


def test_a_checked_read_keeps_the_rows_the_snapshot_holds_at_the_same_commit():
    read = ChangeRead("dwd.events", "latest_state", "1", "2", check_current=True)
    changes = "hudi_table_changes('dwd.events', 'latest_state', '1', '2')"
    queries = ChangeReadQueries(Statements())
    assert queries.relation(read) == (
        f"(select changes.* from {changes} as changes left semi join "
        "(select _hoodie_record_key, _hoodie_partition_path, _hoodie_commit_time from dwd.events) "
        "as current on changes._hoodie_record_key = current._hoodie_record_key "
        "and changes._hoodie_partition_path = current._hoodie_partition_path "
        "and changes._hoodie_commit_time = current._hoodie_commit_time)"
    )
    # Partitioned: the snapshot's side reads the partitions the changes touch.
    partitioned = ChangeRead(
        "dwd.events", "latest_state", "1", "2", check_current=True, partition_columns=("day",)
    )
    assert (
        "from dwd.events where array_contains((select collect_set(struct(`day`)) "
        f"from {changes}), struct(`day`))" in queries.relation(partitioned)
    )
    # An empty read reads nothing to check.
    assert "semi join" not in queries.relation(
        ChangeRead("dwd.events", "latest_state", "2", "2", check_current=True)
    )
