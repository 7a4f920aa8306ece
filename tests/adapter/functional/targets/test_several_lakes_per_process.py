"""Several projects, each on its own lake, run by dbt in one process (dbt's
adapter tests, a notebook, an orchestrator calling dbt in-process): the
process's one Spark JVM moves its session from lake to lake
(session/lake_switch.py). Each lake keeps its own tables and catalog, the lake left is
free for another process at once, and a profile the JVM cannot serve is
refused before anything is written."""

from __future__ import annotations

import fcntl
import json
import queue
import threading
from pathlib import Path

import pytest
from dbt_common.exceptions import DbtRuntimeError

from adlake.bench import lake_moves
from dbt.adapters.lakehouse.session import embedded as embedded_session
from dbt.adapters.lakehouse.warm import state as warm_state
from tests.dbt_harness import DbtProject, failures, hudi_jar, profile_yaml, spark

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


def catalog_tables(lake: Path) -> set[str]:
    """The tables of the catalog database of the lake the session is on."""
    jvm = spark()._jvm
    url = f"jdbc:derby:;databaseName={lake.resolve() / 'metastore_db'}"
    connection = jvm.java.sql.DriverManager.getConnection(url)
    try:
        query = "select tablename from sys.systables where tabletype = 'T'"
        rows = connection.createStatement().executeQuery(query)
        names = set()
        while rows.next():
            names.add(str(rows.getString(1)))
        return names
    finally:
        connection.close()


def drop_a_schema(project: DbtProject) -> None:
    project.rows(f"create schema {project.schema}_gone")
    project.rows(f"drop schema {project.schema}_gone")


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


def payments_project(root: Path, schema: str, lake_catalog: str | None = None) -> DbtProject:
    project = DbtProject(root, schema, root.parent / f"{root.name}_lake", lake_catalog)
    project.write("seeds/payments.csv", PAYMENTS)
    project.model("totals", TOTALS)
    return project


def test_one_process_moves_between_lakes_and_each_keeps_its_own(project, tmp_path):
    project.model("first", MODEL)
    project.dbt("run")  # this process's session is on the shared test lake (or was already)
    home = project.lake_dir.resolve()
    worker = Worker()
    assert project.schema in worker.schemas()

    # Lakes a and b keep their catalogs in Derby databases, whatever a new
    # lake's default (lake/catalog.py): what this test is about.
    a = payments_project(tmp_path / "a", project.schema + "_a", "metastore")
    a.dbt("build")
    assert a.scalar("select count(*) from {schema}.totals") == 3
    # Its catalog started as a copy of the empty one (session/catalog_template.py):
    # Hive's token tables, which no statement here makes; its rows are its own.
    assert {"MASTER_KEYS", "DELEGATION_TOKENS", "TBLS"} <= catalog_tables(a.lake_dir)
    default = dict(a.rows("describe database default"))
    assert default["Location"] == f"file:{a.lake_dir.resolve() / 'warehouse'}"
    drop_a_schema(a)
    assert a.scalar(CENTS) == 6150
    assert a.table_dir("totals").joinpath(".hoodie").is_dir()
    # The lake left is free for another process, and its catalog holds none
    # of the next lake's schemas; this one holds none of its.
    assert lake_free(home)
    schemas_a = {row[0] for row in a.rows("show schemas")}
    assert a.schema in schemas_a and project.schema not in schemas_a
    # The long-lived thread reads the lake the session is on now.
    assert worker.schemas() == schemas_a
    # A connection of lake a's session, kept across the move below.
    kept = embedded_session.EmbeddedConnection(spark(), {}).cursor()
    context = spark().sparkContext.applicationId

    b = DbtProject(tmp_path / "b", project.schema + "_b", tmp_path / "b_lake", "metastore")
    b.model("second", MODEL)
    # What a copy of the template killed half-way leaves: never the catalog.
    killed_copy = b.lake_dir / "metastore_db.seeding-1"
    killed_copy.mkdir(parents=True)
    b.dbt("run")
    assert not killed_copy.exists() and "MASTER_KEYS" in catalog_tables(b.lake_dir)
    # Hive's transaction handler, which a dropped schema reaches, works on
    # this lake's catalog: it kept a's open (and wrote to it) before.
    drop_a_schema(b)
    assert not lake_free(b.lake_dir) and lake_free(a.lake_dir)
    assert a.schema not in {row[0] for row in b.rows("show schemas")}
    # The same settings but for the lake's folder: the move kept the Spark
    # context, with a session state of b's own; a's connections refuse.
    assert spark().sparkContext.applicationId == context
    with pytest.raises(DbtRuntimeError, match="no longer this process's"):
        kept.execute("select 1")

    # Back on lake a, with a setting of its own (a new Spark context): its
    # catalog and tables are as they were, and the incremental model goes on.
    profile = a.root / "profiles.yml"
    profile.write_text(
        profile.read_text().replace(
            "threads: 1", "threads: 1\n      spark_conf:\n        spark.sql.shuffle.partitions: '3'"
        )
    )
    a.write("seeds/payments.csv", PAYMENTS + MORE_PAYMENTS)
    a.dbt("seed")
    assert spark().sparkContext.applicationId != context
    assert spark().conf.get("spark.sql.shuffle.partitions") == "3"
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


def test_with_warm_start_on_a_new_lake_runs_on_this_process_s_spark(project, tmp_path, monkeypatch):
    """A process calling dbt in-process starts no warm server for a lake
    without one: its own Spark moves there (warm/client.py, _own_spark_pays)."""
    project.model("first", MODEL)
    project.dbt("run")
    monkeypatch.setenv("LAKEHOUSE_WARM_START", "1")
    other = payments_project(tmp_path / "warm_on", project.schema + "_warm_on")
    other.dbt("build")
    assert embedded_session.process_lake() == other.lake_dir.resolve()
    # No server started (one writes its state file before it serves).
    assert warm_state.read_state(other.lake_dir) is None
    assert other.scalar(CENTS) == 6150


def test_the_lake_moves_benchmark_builds_a_table_in_each_new_lake(project, tmp_path):
    """`python -m adlake.bench.lake_moves` on three new lakes, in this
    process: each lake got its own schema and table (the same names in each:
    a move that left the session on the last lake's catalog fails it), and
    the figures of each step are there. No time is asserted."""
    project.model("first", MODEL)
    project.dbt("run")  # the worker's session, started with the suite's profile
    figures_file = tmp_path / "moves.json"
    work = tmp_path / "moves"
    argv = ["--lakes", "3", "--work", str(work), "--json", str(figures_file)]
    assert lake_moves.main([*argv, "--hudi-jar", str(hudi_jar())]) == 0
    for number in (1, 2, 3):
        assert (work / f"lake{number}" / "warehouse" / "s.db" / "t").is_dir(), number
    figures = json.loads(figures_file.read_text())
    assert set(figures["new lake"]) == {"move", *lake_moves.STATEMENTS}
    assert set(figures["new schema, one catalog"]) == set(lake_moves.STATEMENTS)
    assert all(seconds > 0 for seconds in figures["new lake"].values())


@pytest.fixture(autouse=True)
def _home_again(project):
    """Whatever a test did, the next test of this worker finds the session on
    the suite's lake, as the other tests' `spark()` expects."""
    yield
    project.model("first", MODEL)
    project.dbt("run")
