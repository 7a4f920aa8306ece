"""Several projects, each on its own lake, run by dbt in one process (dbt's
adapter tests, a notebook, an orchestrator calling dbt in-process): the
process's one Spark JVM moves its session from lake to lake
(lake_switch.py). Each lake keeps its own tables and catalog, the lake left is
free for another process at once, and a profile the JVM cannot serve is
refused before anything is written."""

from __future__ import annotations

import fcntl
import queue
import threading
from pathlib import Path

import pytest

from dbt.adapters.lakehouse import embedded_session
from tests.dbt_harness import DbtProject, failures, profile_yaml, spark

PAYMENTS = "id,amount\n1,10.25\n2,20.50\n3,30.75\n"
MORE_PAYMENTS = "4,40.00\n5,0.01\n"
TOTALS = """
{{ config(materialized='incremental', unique_key='id') }}
select id, amount from {{ ref('payments') }}
{% if is_incremental() %} where id > (select max(id) from {{ this }}) {% endif %}
"""
CENTS = "select cast(round(sum(amount) * 100) as bigint) from {schema}.totals"
MODEL = "{{ config(materialized='table') }} select 1 as id"


def lake_free(lake: Path) -> bool:
    """Whether another process could take the lake now: its lock not held
    and its Derby catalog not open (Derby removes db.lck at shutdown)."""
    with (lake / ".lakehouse.lock").open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
    return not (lake / "metastore_db" / "db.lck").exists()


class Worker:
    """A thread that lives across the moves, as a long-lived thread of a
    notebook or orchestrator does: Hive kept a catalog connection per thread."""

    def __init__(self) -> None:
        self.jobs: queue.Queue = queue.Queue()
        self.results: queue.Queue = queue.Queue()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            job = self.jobs.get()
            try:
                self.results.put(job())
            except Exception as error:  # noqa: BLE001 (reported to the test)
                self.results.put(error)

    def schemas(self) -> set[str]:
        self.jobs.put(
            lambda: {row[0] for row in spark().newSession().sql("show schemas").collect()}
        )
        return self.results.get(timeout=120)


def payments_project(root: Path, schema: str) -> DbtProject:
    project = DbtProject(root, schema, root.parent / f"{root.name}_lake")
    project.write("seeds/payments.csv", PAYMENTS)
    project.model("totals", TOTALS)
    return project


def test_one_process_moves_between_lakes_and_each_keeps_its_own(project, tmp_path):
    project.model("first", MODEL)
    project.dbt("run")  # this process's session is on the shared test lake (or was already)
    home = project.lake_dir.resolve()
    worker = Worker()
    assert project.schema in worker.schemas()

    a = payments_project(tmp_path / "a", project.schema + "_a")
    a.dbt("build")
    assert a.scalar("select count(*) from {schema}.totals") == 3
    assert a.scalar(CENTS) == 6150
    assert a.table_dir("totals").joinpath(".hoodie").is_dir()
    # The lake left is free for another process, and its catalog holds none
    # of the next lake's schemas; this one holds none of its.
    assert lake_free(home)
    schemas_a = {row[0] for row in a.rows("show schemas")}
    assert a.schema in schemas_a and project.schema not in schemas_a
    # The long-lived thread reads the lake the session is on now.
    assert worker.schemas() == schemas_a

    b = DbtProject(tmp_path / "b", project.schema + "_b", tmp_path / "b_lake")
    b.model("second", MODEL)
    b.dbt("run")
    assert not lake_free(b.lake_dir) and lake_free(a.lake_dir)
    assert a.schema not in {row[0] for row in b.rows("show schemas")}

    # Back on lake a: its catalog and tables are as they were, and the
    # incremental model goes on from them.
    a.write("seeds/payments.csv", PAYMENTS + MORE_PAYMENTS)
    a.dbt("seed")
    a.dbt("run")
    assert a.scalar("select count(*) from {schema}.totals") == 5
    assert a.scalar(CENTS) == 10151
    commits = [i for i in a.completed_instants("totals") if i[2] in ("commit", "deltacommit")]
    assert len(commits) == 2

    # Back home: the suite's lake, with none of the other projects' schemas.
    project.dbt("run")
    schemas = {row[0] for row in project.rows("show schemas")}
    assert project.schema in schemas and not {a.schema, b.schema} & schemas
    assert worker.schemas() == schemas
    assert not project.table_dir("totals", a.schema).exists()


def test_a_lake_the_jvm_cannot_serve_is_refused_before_anything_is_written(project, tmp_path):
    project.model("first", MODEL)
    project.dbt("run")

    other = DbtProject(tmp_path / "other", project.schema + "_other", tmp_path / "other_lake")
    other.model("second", MODEL)
    profile = other.root / "profiles.yml"
    profile.write_text(
        profile.read_text().replace(
            "threads: 1", "threads: 1\n      spark_conf:\n        spark.driver.memory: 5g"
        )
    )
    result = other.dbt("run", expect_ok=False)
    said = str(result.exception or failures(result))
    assert "other JVM launch settings" in said and "spark.driver.memory" in said
    assert "one `dbt` command per target" in said
    assert not other.table_dir("second").exists()

    # A statement of this process running on the lake: the session stays.
    other.write("profiles.yml", profile_yaml("lake_test", other.schema, other.lake_dir))
    with embedded_session.running():
        result = other.dbt("run", expect_ok=False)
    assert "running statements on" in str(result.exception or failures(result))
    assert not other.table_dir("second").exists()
    project.dbt("run")  # the suite's lake still works in this process
    assert project.scalar("select count(*) from {schema}.first") == 1


@pytest.fixture(autouse=True)
def _home_again(project):
    """Whatever a test did, the next test of this worker finds the session on
    the suite's lake, as the other tests' `spark()` expects."""
    yield
    project.model("first", MODEL)
    project.dbt("run")
