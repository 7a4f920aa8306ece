"""Change reads of a merge-on-read upstream whose compaction was pending while it
took writes: a delta commit written on the file slice of a compaction that
completes after it makes Hudi 1.2's CDC query fail on every range that holds
it (the adapter's formats/hudi/compaction_order.py). The models are cdc_models'. The kill
during an inline compaction is in crash/test_killed_writer.py; here,
compaction `mode: schedule`, where a plan waits for `lake_compact_scheduled`
while the table takes writes, and a lake wedged by another writer.
"""

from __future__ import annotations

import pytest

from dbt.adapters.lakehouse.formats.hudi.change_ranges import written_on_pending_compactions
from tests.adapter.functional.change_reads.cdc_models import DOWN, IDS, total, up
from tests.dbt_harness import DbtProject, failures, spark

# Recomputes the groups the changes touch; reads in full when a range cannot be read.
DOWN_KEYS = """
    {{ config(materialized='incremental', unique_key='grp', incremental_strategy='upsert') }}
    select grp, sum(value) as total, count(*) as records
    from {{ ref('up') }}
    where grp in (select grp from {{ lake_changed_keys(ref('up'), ['grp']) }} as keys)
    group by grp
"""
TOTALS = "select sum(total), sum(records) from {schema}.%s"


def expected(batch: int) -> tuple[int, int]:
    return total(batch), IDS


def run_batch(project: DbtProject, batch: int, *args: str):
    return project.dbt("run", "--vars", f"{{batch: {batch}}}", *args)


@pytest.fixture(scope="module")
def scheduled(tmp_path_factory, lake_dir) -> DbtProject:
    """Batches 1 and 2 (the second write plans a compaction), batch 3 of `up`
    alone while the plan is pending (`down` does not run: say its run
    failed), then the operation that runs plans, then batch 4 of both."""
    project = DbtProject(tmp_path_factory.mktemp("scheduled"), "pending_compaction", lake_dir)
    project.model("up", up("schedule"))
    project.model("down", DOWN)
    project.model("down_keys", DOWN_KEYS)
    run_batch(project, 1)
    run_batch(project, 2)
    assert _planned(project), "the second write planned no compaction"
    run_batch(project, 3, "--select", "up")
    project.dbt("run-operation", "lake_compact_scheduled", "--vars", "{batch: 3}")
    run_batch(project, 4)
    return project


def _planned(project: DbtProject) -> list[str]:
    timeline = project.table_dir("up") / ".hoodie" / "timeline"
    return sorted(p.name for p in timeline.glob("*.compaction.requested"))


def test_schedule_mode_write_on_a_pending_plan_leaves_every_read_exact(scheduled):
    project = scheduled
    for model in ("down", "down_keys"):
        assert tuple(project.rows(TOTALS % model)[0]) == expected(4), model
    instants = project.completed_instants("up")
    # The plan ran before batch 3 was written, not after it.
    assert written_on_pending_compactions(instants) == ()
    compactions = [(i, c) for i, c, action in instants if action == "commit"]
    deltas = [i for i, _, action in instants if action == "deltacommit"]
    assert len(deltas) == 4 and len(compactions) == 1, instants
    (planned, compacted), third = compactions[0], deltas[2]
    assert deltas[1] < planned < compacted < third


def test_lake_wedged_by_another_writer_stops_signed_reads_with_the_rebuild_command(scheduled):
    """Another writer (plain Spark SQL) writes on the file slices of the plan
    batch 4's write made, then runs the plan: `down`'s next range holds a
    delta commit Hudi's CDC query cannot read. lake_signed_changes stops with
    the table, the instants and the command; lake_changed_keys reads `up` in
    full (on_gap full); the command rebuilds `down` exactly."""
    project = scheduled
    table = f"{project.schema}.up"
    session = spark().newSession()
    plans = session.sql(f"call show_compaction(table => '{table}')").collect()
    (plan,) = [row["timestamp"] for row in plans if row["state"] == "REQUESTED"]
    session.sql("set hoodie.spark.sql.insert.into.operation=upsert")
    batch_5 = f"select id, 5, id * 5, pmod(id, 4) from range(1, {IDS + 1}) as r(id)"
    session.sql(f"insert into {table} {batch_5}")
    session.sql(f"call run_compaction(op => 'run', table => '{table}')").collect()
    ((delta, _, compaction),) = written_on_pending_compactions(project.completed_instants("up"))
    assert compaction == plan

    result = project.dbt("run", "--vars", "{batch: 5}", "--select", "down", expect_ok=False)
    (message,) = failures(result)
    assert table in message and delta in message and compaction in message, message
    assert "dbt run --full-refresh --select down" in message, message
    assert "java." not in message and "NoSuchElement" not in message, message

    project.dbt("run", "--vars", "{batch: 5}", "--select", "down_keys")
    assert tuple(project.rows(TOTALS % "down_keys")[0]) == expected(5)
    project.dbt("run", "--vars", "{batch: 5}", "--select", "down", "--full-refresh")
    assert tuple(project.rows(TOTALS % "down")[0]) == expected(5)
