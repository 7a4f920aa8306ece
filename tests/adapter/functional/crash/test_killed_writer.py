"""A run killed with SIGKILL part-way leaves a lake the next run completes.

Each test runs dbt in a child process with a lake of its own (an embedded Derby
metastore admits one JVM), kills the child's whole process group (Python and
its Spark JVM at once, as kill -9 of a job does) at a point read off the
files on disk, then starts the next run at once and checks the table's values.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
import yaml

from dbt.adapters.lakehouse.formats.hudi.change_ranges import written_on_pending_compactions
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from tests.adapter.functional.change_reads import cdc_models
from tests.adapter.functional.crash.child_runs import ChildRun, query_rows
from tests.dbt_harness import DbtProject, completed_instants

IDS = 200

# A MOR table upserted by id; batch b gives every id the value id * b, with b as
# the precombine key. `pause_ms` slows the query down row by row (a static Java
# call through reflect, tied to `id` so that Spark runs it per row; reflect
# gives a void method's result as 'null'), so that a run can be caught while
# it stages its batch. (`coalesce(reflect(..), '') is not null` did nothing:
# Spark drops it as always true.)
# The metadata table is on (the adapter's default has it off), compacted often:
# its compaction is the one kill point Hudi does not recover by itself.
_EVENTS_TEMPLATE = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id', precombine_key='batch',
              compaction={'trigger': 'num_commits', 'delta_commits': 2},
              hudi_options={'hoodie.metadata.enable': true, 'hoodie.metadata.compact.max.delta.commits': 3}) }}
    select id, {{ var('batch') }} as batch, id * {{ var('batch') }} as value
    from (select explode(sequence(1, %d)) as id)
    where reflect('java.lang.Thread', 'sleep', cast({{ var('pause_ms', 0) }} + 0 * id as bigint)) = 'null'
"""
# %-format: Jinja's braces would need doubling in an f-string or str.format.
EVENTS = _EVENTS_TEMPLATE % IDS  # noqa: UP031


@pytest.fixture
def own_lake_project(tmp_path) -> DbtProject:
    project = DbtProject(tmp_path / "project", "crash", tmp_path / "lake")
    project.model("events", EVENTS)
    return project


VALUES = "select count(*), sum(value), max(batch) from crash.events"


def expected(batch: int):
    return IDS, sum(i * batch for i in range(1, IDS + 1)), batch


def test_run_killed_while_staging_its_batch_does_not_wedge_the_next(own_lake_project):
    """The killed CREATE TABLE of the scratch batch leaves its folder without a
    table in the catalog; a managed CREATE at that place then failed for good.
    (Batches staged on the lake, as on a cluster or a server; a batch staged in
    memory, the embedded default, dies with the JVM: the warehouse's kill
    points cover that, tests/warehouse/warehouse_batches.py.)"""
    project = own_lake_project
    profiles = yaml.safe_load((project.root / "profiles.yml").read_text())
    profiles["lake_test"]["outputs"]["local"]["stage_in_memory"] = False
    project.write("profiles.yml", yaml.safe_dump(profiles))
    scratch = project.table_dir("events__lakehouse_batch")
    run = ChildRun(project, 1, 1, "--var", "pause_ms=150")
    run.kill_when(lambda: scratch.is_dir())
    assert scratch.is_dir()  # what wedged the lake: a folder with no table
    # The killed run's Spark scratch (its copy of the Hudi bundle) is in the
    # lake, not in /tmp: the next run on the lake removes it.
    spark_scratch = project.lake_dir / ".spark-local" / f"{socket.gethostname()}-{run.process.pid}"
    assert list(spark_scratch.glob("spark-*/userFiles-*/*.jar")), spark_scratch
    # So is the folder the catalog's Hive client makes at start and never
    # removes (in /tmp, one per session, however it ended); a lake whose
    # catalog is a folder starts no Hive.
    if lake_catalog.kind_in(project.lake_dir) == lake_catalog.METASTORE:
        assert list(spark_scratch.glob("*_resources")), list(spark_scratch.iterdir())
    # And the JVM's temporary files (its java.io.tmpdir): spark-submit's own
    # spark-<uuid> folder, empty, beside the one that holds the jars.
    folders = list(spark_scratch.glob("spark-*"))
    assert any(not any(folder.iterdir()) for folder in folders), folders

    # The scratch folder is emptied after each write: no batch stays on disk.
    rerun = ChildRun(
        project, 1, 2, "--query", VALUES, "--query", f"select count(*) from parquet.`{scratch}`"
    )
    assert rerun.finish() == 0, rerun.output()
    assert rerun.batches_done() == [1, 2]
    assert query_rows(rerun) == [expected(2), (0,)]
    assert not spark_scratch.exists()


PLANNED_COMPACTION = re.compile(r"^(\d+)\.compaction\.(requested|inflight)$")


def pending_compactions(timeline: Path) -> list[str]:
    """Compactions requested or started and never completed (a completed one
    is `<instant>_<completed>.commit`)."""
    started = {
        m.group(1) for m in map(PLANNED_COMPACTION.match, (p.name for p in timeline.iterdir())) if m
    }
    return sorted(i for i in started if not list(timeline.glob(f"{i}_*.commit")))


@pytest.mark.parametrize("service", ["metadata_compaction", "table_compaction"])
def test_run_started_at_once_after_a_kill_during_compaction_completes(own_lake_project, service):
    project = own_lake_project
    hoodie = project.table_dir("events") / ".hoodie"
    timeline = (
        hoodie / "metadata" / ".hoodie" / "timeline"
        if service == "metadata_compaction"
        else hoodie / "timeline"
    )
    run = ChildRun(project, 1, 40)
    run.kill_when(lambda: timeline.is_dir() and bool(list(timeline.glob("*.compaction.inflight"))))
    killed_in = max(run.batches_done(), default=0) + 1

    # At once, while the dead writer's heartbeat is still fresh.
    rerun = ChildRun(project, killed_in, killed_in + 1, "--query", VALUES)
    assert rerun.finish() == 0, rerun.output()
    assert query_rows(rerun) == [expected(killed_in + 1)]
    assert not pending_compactions(hoodie / "metadata" / ".hoodie" / "timeline")
    if service == "metadata_compaction":
        assert "left pending by a writer that died" in rerun.output()
    last = completed_instants(project.table_dir("events"))[-1]
    assert last[2] in ("deltacommit", "commit")


def test_scheduled_compaction_killed_in_flight_is_completed_by_the_next_operation(tmp_path):
    """`lake_compact_scheduled` (compaction mode `schedule`: the writes plan,
    the operation runs the plans between builds) killed while it runs a plan,
    then run again at once: the plan left in flight is completed, the data is
    unchanged."""
    project = DbtProject(tmp_path / "project", "crash", tmp_path / "lake")
    project.model(
        "events", EVENTS.replace("'delta_commits': 2}", "'delta_commits': 2, 'mode': 'schedule'}")
    )
    timeline = project.table_dir("events") / ".hoodie" / "timeline"
    # A batch, then the operation, until a compaction is caught in flight.
    run = ChildRun(project, 1, 40, "--operation", "lake_compact_scheduled")
    run.kill_when(lambda: timeline.is_dir() and bool(list(timeline.glob("*.compaction.inflight"))))
    written = max(run.batches_done())
    killed = pending_compactions(timeline)
    assert killed, "the kill left no compaction in flight"

    # At once, while the dead process's heartbeat is still fresh: the operation alone.
    rerun = ChildRun(
        project, written + 1, written, "--operation", "lake_compact_scheduled", "--query", VALUES
    )
    assert rerun.finish() == 0, rerun.output()
    assert "operation lake_compact_scheduled done" in rerun.output()
    assert query_rows(rerun) == [expected(written)]
    assert not pending_compactions(timeline)
    completed = {
        instant: action for instant, _, action in completed_instants(project.table_dir("events"))
    }
    assert all(completed.get(instant) == "commit" for instant in killed), completed


def test_write_after_a_kill_during_compaction_leaves_the_downstream_change_read_exact(tmp_path):
    """A kill during an inline compaction leaves its plan pending; the next run
    writes the table again at once. Had that delta commit landed on the plan's
    file slices (Hudi runs a pending plan only after the next write commits),
    the compaction would complete after it and the downstream's CDC read of
    the range would fail on every run after. The adapter runs the plan first."""
    project = DbtProject(tmp_path / "project", "crash", tmp_path / "lake")
    project.model("up", cdc_models.up("inline"))
    project.model("down", cdc_models.DOWN)
    timeline = project.table_dir("up") / ".hoodie" / "timeline"
    run = ChildRun(project, 1, 10)
    run.kill_when(lambda: timeline.is_dir() and bool(list(timeline.glob("*.compaction.inflight"))))
    killed = pending_compactions(timeline)
    killed_in = max(run.batches_done(), default=0) + 1
    assert killed, "the kill left no compaction pending"

    rerun = ChildRun(
        project,
        killed_in,
        killed_in + 1,
        "--query",
        "select sum(total), sum(records) from crash.down",
        "--query",
        "select count(*), sum(value) from crash.up",
    )
    assert rerun.finish() == 0, rerun.output()
    assert "ran the compaction plan(s) pending on crash.up before writing" in rerun.output()
    total = cdc_models.total(killed_in + 1)
    assert query_rows(rerun) == [(total, cdc_models.IDS), (cdc_models.IDS, total)]
    instants = completed_instants(project.table_dir("up"))
    assert written_on_pending_compactions(instants) == (), instants
    completed = {instant: action for instant, _, action in instants}
    assert all(completed.get(instant) == "commit" for instant in killed), completed
