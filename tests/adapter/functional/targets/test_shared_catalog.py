"""Two embedded Spark applications sharing one Hive catalog on PostgreSQL
(adlake.servers.catalog), each a `dbt` process with its own lake folder.

Process A builds a partitioned Hudi table and stays alive, its JVM connected to
the catalog; process B, started meanwhile, reads that table by name and builds
a table of its own from it; A upserts into its table and B reads the new
values; A reads B's table. Neither takes its lake's lock (a shared catalog
admits several applications), neither opens a Derby metastore, and the
catalog's password is in no file, log or command line.

Run as a script, this module is one such process (`child_main`): it reads one
JSON command a line on stdin (run dbt, run a query, exit) and answers each
with a line starting with MARK on stdout, among dbt's own output.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
import yaml

from adlake.servers import catalog
from tests.adapter.functional.security.sockets import listening
from tests.dbt_harness import REPO, bytes_unless_gone, files_under, hudi_jar

MARK = "@@shared-catalog@@ "
SCHEMA_A, SCHEMA_B = "shared_a", "shared_b"
PASSWORD_PLACEHOLDER = "{{ env_var('" + catalog.PASSWORD_ENV + "') }}"


# --- the child process ---------------------------------------------------------


def child_main(project_dir: str) -> None:
    from dbt.cli.main import dbtRunner
    from pyspark.sql import SparkSession

    def answer(payload: dict) -> None:
        print(MARK + json.dumps(payload), flush=True)

    answer({"started": os.getpid()})
    for line in sys.stdin:
        command = json.loads(line)
        if "dbt" in command:
            args = command["dbt"] + ["--project-dir", project_dir, "--profiles-dir", project_dir]
            result = dbtRunner().invoke(args)
            answer(
                {
                    "ok": bool(result.success),
                    "error": None if result.success else str(result.exception),
                }
            )
        elif "sql" in command:
            session = SparkSession.getActiveSession() or SparkSession._instantiatedSession
            # A fresh child session: it has no cached file listing of the table.
            rows = session.newSession().sql(command["sql"]).collect()
            answer({"rows": [[value for value in row] for row in rows]})
        else:
            answer({"bye": True})
            return


# --- the test's side -----------------------------------------------------------


class Child:
    """A child dbt process; every command waits for its answer, with a timeout."""

    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.output: list[str] = []
        self._answers: queue.Queue[dict | None] = queue.Queue()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.adapter.functional.targets.test_shared_catalog",
                str(project),
            ],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.pid = self._wait(60)["started"]

    def _read(self) -> None:
        for line in self.process.stdout:
            self.output.append(line)
            if line.startswith(MARK):
                self._answers.put(json.loads(line[len(MARK) :]))
        self._answers.put(None)

    def _wait(self, timeout: float) -> dict:
        try:
            answer = self._answers.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s; output:\n{self.tail()}") from None
        if answer is None:
            raise AssertionError(
                f"the child exited ({self.process.poll()}); output:\n{self.tail()}"
            )
        return answer

    def tail(self, lines: int = 40) -> str:
        """The last lines of the output, and its error lines before them."""
        errors = [line for line in self.output[:-lines] if "ERROR" in line or "Error" in line][
            -lines:
        ]
        return "".join(errors + ["...\n"] + self.output[-lines:])

    def send(self, command: dict, timeout: float = 300) -> dict:
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self._wait(timeout)

    def dbt(self, *args: str) -> None:
        answer = self.send({"dbt": list(args)})
        assert answer["ok"], f"dbt {' '.join(args)} failed: {answer['error']}\n{self.tail()}"

    def rows(self, sql: str) -> list:
        return self.send({"sql": sql})["rows"]

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send({"exit": True}, timeout=30)
                self.process.wait(60)
            except (AssertionError, OSError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)  # its own group: python and its JVM
            self.process.wait()


def listening_ports() -> set:
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def processes_mentioning(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if text.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


@pytest.fixture
def shared_catalog(monkeypatch):
    # Not under pytest's tmp_path: its base folder is 0700, and run by root the
    # server runs as an unprivileged account that must reach its folder.
    folder = Path(tempfile.mkdtemp(prefix="lakehouse-catalog-"))
    # No password in the environment: the catalog generates one and keeps it.
    monkeypatch.delenv(catalog.PASSWORD_ENV, raising=False)
    info = None
    try:
        info = catalog.start(folder, port=catalog.free_port())
        yield folder, info
    finally:
        catalog.stop(folder)
        if info is not None:
            assert not catalog.alive(info["pid"], folder / "pgdata")
            assert info["port"] not in listening_ports()
        assert processes_mentioning(str(folder / "pgdata")) == []
        shutil.rmtree(folder)


def write_project(
    root: Path, schema: str, lake: Path, conf: dict[str, str], models: dict[str, str]
) -> Path:
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        yaml.safe_dump(
            {
                "name": "shared_catalog",
                "version": "1.0",
                "config-version": 2,
                "profile": "shared_catalog",
            }
        )
    )
    (root / "profiles.yml").write_text(
        yaml.safe_dump(
            {
                "shared_catalog": {
                    "target": "local",
                    "outputs": {
                        "local": {
                            "type": "lakehouse",
                            "method": "session",
                            "schema": schema,
                            "lake_dir": str(lake),
                            "hudi_jar": str(hudi_jar()),
                            "threads": 1,
                            "master": "local[1]",
                            "spark_conf": {**conf, "spark.driver.memory": "1g"},
                        }
                    },
                }
            }
        )
    )
    for name, sql in models.items():
        (root / "models" / f"{name}.sql").write_text(sql)
    return root


EVENTS = """
{{ config(materialized='incremental', file_format='hudi', unique_key='id', partition_by='region') }}
{% if var('batch') == 1 %}
select * from (values (1, 'eu', 10), (2, 'eu', 20), (3, 'us', 30), (4, 'us', 40), (5, 'apac', 50))
  as t(id, region, amount)
{% else %}
-- an update of id 2 and a new id 6
select * from (values (2, 'eu', 25), (6, 'apac', 60)) as t(id, region, amount)
{% endif %}
"""

SUMMARY = f"""
{{{{ config(materialized='table', file_format='hudi') }}}}
select region, count(*) as events, sum(amount) as amount from {SCHEMA_A}.events group by region
"""


def test_two_applications_share_one_catalog(shared_catalog, tmp_path):
    folder, info = shared_catalog
    secret = catalog.password(folder)
    assert (folder / "password").stat().st_mode & 0o777 == 0o600
    assert info["schema_version"] == "2.3.0"
    # The server (its postmaster and every child) listens on loopback only.
    assert listening(info["pid"]) == [("127.0.0.1", info["port"])]
    conf = catalog.spark_conf(folder, password_value=PASSWORD_PLACEHOLDER)
    warehouse = Path(conf["spark.sql.warehouse.dir"])
    env = dict(os.environ, **{catalog.PASSWORD_ENV: secret})
    env.pop("DBT_PROFILES_DIR", None)

    lake_a, lake_b = tmp_path / "lake_a", tmp_path / "lake_b"
    project_a = write_project(tmp_path / "a", SCHEMA_A, lake_a, conf, {"events": EVENTS})
    project_b = write_project(tmp_path / "b", SCHEMA_B, lake_b, conf, {"summary": SUMMARY})
    outputs = []
    a = Child(project_a, env)
    try:
        a.dbt("run", "--vars", "{batch: 1}")
        assert a.rows(f"select count(*), sum(amount) from {SCHEMA_A}.events") == [[5, 150]]
        # A's JVM is alive and holds its metastore connections.
        assert (
            int(
                catalog.query(
                    folder,
                    "SELECT count(*) FROM pg_stat_activity "
                    f"WHERE datname = '{catalog.DATABASE}' AND usename = '{catalog.ROLE}';",
                )
            )
            > 0
        )
        b = Child(project_b, env)
        try:
            assert a.process.poll() is None
            # While both JVMs are alive: the password on no process's command line.
            assert processes_mentioning(secret) == []
            b.dbt("run")
            assert b.rows(f"select id, region, amount from {SCHEMA_A}.events order by id") == [
                [1, "eu", 10],
                [2, "eu", 20],
                [3, "us", 30],
                [4, "us", 40],
                [5, "apac", 50],
            ]
            assert b.rows(
                f"select region, events, amount from {SCHEMA_B}.summary order by region"
            ) == [["apac", 1, 50], ["eu", 2, 30], ["us", 2, 70]]

            # A writes again while B is alive; B reads the new values by name.
            a.dbt("run", "--vars", "{batch: 2}")
            assert b.rows(f"select count(*), sum(amount) from {SCHEMA_A}.events") == [[6, 215]]
            assert b.rows(f"select amount from {SCHEMA_A}.events where id = 2") == [[25]]
            # ... and A sees the table B created.
            assert a.rows(f"select sum(events), sum(amount) from {SCHEMA_B}.summary") == [[5, 150]]
            assert [r[1] for r in a.rows(f"show tables in {SCHEMA_B}")] == ["summary"]
        finally:
            b.close()
            outputs.append(b.output)
            (tmp_path / "b.out").write_text("".join(b.output))
    finally:
        a.close()
        outputs.append(a.output)
        (tmp_path / "a.out").write_text("".join(a.output))

    # One warehouse, recorded in the catalog; no lake lock, no Derby metastore.
    assert (warehouse / f"{SCHEMA_A}.db" / "events" / ".hoodie" / "hoodie.properties").is_file()
    assert sorted(
        p.name
        for p in (warehouse / f"{SCHEMA_A}.db" / "events").iterdir()
        if not p.name.startswith(".")
    ) == ["region=apac", "region=eu", "region=us"]
    assert (warehouse / f"{SCHEMA_B}.db" / "summary" / ".hoodie").is_dir()
    for lake in (lake_a, lake_b):
        assert not (lake / ".lakehouse.lock").exists()
        assert not (lake / "metastore_db").exists()

    # The password: in no output, no file of the projects (target/, logs/,
    # profiles.yml), lakes, warehouse, or catalog folder but its own file.
    assert all(secret not in "".join(output) for output in outputs)
    searched = 0
    for root in (tmp_path, warehouse, folder / "logs", folder / "catalog.json"):
        for path in files_under(root):
            searched += 1
            assert secret.encode() not in bytes_unless_gone(path), path
    assert searched > 20
    assert (project_a / "target" / "manifest.json").is_file() and (
        project_b / "logs" / "dbt.log"
    ).is_file()


# Two applications write one table of the shared catalog at once: each its own
# partition, every round both runs in flight together. The shared catalog makes
# `concurrency: optimistic` the default (Hudi's lock file in the table's folder).
# A commit's own work takes a second here, while a dbt run's preparation takes
# several on a busy machine: so that the two commits are in flight together,
# each holds for a few seconds inside its commit (a pre-commit validator whose
# query sleeps, then finds the one row it expects).
HOLD = "select count(*) from (select reflect('java.lang.Thread', 'sleep', cast(6000 as bigint)) as pause) as p where length(coalesce(pause, '')) >= 0#1"
WRITER = """
{{{{ config(materialized='incremental', file_format='hudi', unique_key='id', partition_by='region',
           hudi_options={{'hoodie.precommit.validators':
                            'org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator',
                         'hoodie.precommit.validators.single.value.sql.queries': "{hold}"}}) }}}}
select id, '{region}' as region, id * {{{{ var('round') }}}} as amount from range(1, 101)
"""


def commit_intervals(table: Path) -> dict[str, list[tuple]]:
    """(requested, completed) of each completed commit, by the partition it wrote
    (read off the commit's metadata file)."""
    found: dict[str, list[tuple]] = {"a": [], "b": []}
    for path in (table / ".hoodie" / "timeline").glob("*_*.commit"):
        requested, completed = path.name.split(".")[0].split("_")
        data = path.read_bytes()
        for region in found:
            if f"region={region}".encode() in data:
                found[region].append((requested, completed))
    return found


def test_two_applications_write_one_table_at_once(shared_catalog, tmp_path):
    folder, _ = shared_catalog
    conf = catalog.spark_conf(folder, password_value=PASSWORD_PLACEHOLDER)
    table = Path(conf["spark.sql.warehouse.dir"]) / "shared_occ.db" / "events"
    env = dict(os.environ, **{catalog.PASSWORD_ENV: catalog.password(folder)})
    env.pop("DBT_PROFILES_DIR", None)
    children = []
    try:
        for region in ("a", "b"):
            project = write_project(
                tmp_path / region,
                "shared_occ",
                tmp_path / f"lake_{region}",
                conf,
                {"events": WRITER.format(region=region, hold=HOLD)},
            )
            children.append(Child(project, env))
        a, b = children
        # Round 1, one after the other: A creates the table, and B's JVM and
        # dbt are warm before the rounds that run at once.
        a.dbt("run", "--vars", "{round: 1}")
        b.dbt("run", "--vars", "{round: 1}")
        rounds = 1
        overlapped = False
        while rounds < 2 or (not overlapped and rounds < 4):
            rounds += 1
            command = {"dbt": ["run", "--vars", f"{{round: {rounds}}}"]}
            for child in children:  # both at once: each answers when its run ends
                child.process.stdin.write(json.dumps(command) + "\n")
                child.process.stdin.flush()
            for child in children:
                answer = child._wait(300)
                assert answer["ok"], f"{answer['error']}\n{child.tail()}"
            written = commit_intervals(table)
            overlapped = any(
                ra < cb and rb < ca for ra, ca in written["a"] for rb, cb in written["b"]
            )
        assert overlapped, commit_intervals(table)
        assert a.rows(
            "select region, count(*), count(distinct id), sum(amount) from shared_occ.events "
            "group by region order by region"
        ) == [["a", 100, 100, 5050 * rounds], ["b", 100, 100, 5050 * rounds]]
    finally:
        for child in children:
            child.close()
    # Nothing was rolled back: no writer took the other's commit for a dead one.
    assert not list((table / ".hoodie" / "timeline").glob("*.rollback*"))
    assert {k: len(v) for k, v in commit_intervals(table).items()} == {"a": rounds, "b": rounds}


if __name__ == "__main__":
    child_main(sys.argv[1])
