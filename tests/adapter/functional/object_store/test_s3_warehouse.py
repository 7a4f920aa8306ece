"""A dbt project whose tables live in a bucket: `warehouse_dir: s3a://...` on
the embedded session, against the project's real S3 server
(adlake.servers.object_store, s3proxy on 127.0.0.1).

dbt runs as a user runs it, the CLI in a process of its own (its session's
warehouse and jars are not those of the test process's session): a
merge-on-read upsert and the table built from it, then the second batch and
a data test that holds only for the upserted figures. The second batch's
build is killed (kill -9) while its upsert writes, then the server is stopped
while the next attempt writes (that run fails, saying why) and started again:
the same build then completes the batch, once. Wrong keys, a
missing bucket and a server that is down fail the session's start, with the
error that names the fix (storage/probe.py). The tables are read
back where the server keeps its objects (files under its data folder): the
table type, the delta commits on the timeline, nothing written to the local
lake folder. The keys come from the environment through the profile's
env_var() into Hadoop's S3 settings, and are in no file dbt wrote and no line
it printed (tests/adapter/functional/security/ checks the JVM's command line
for the same settings).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from adlake.servers import lock_server
from adlake.servers.catalog import free_port
from dbt.adapters.lakehouse.formats.hudi import concurrency
from dbt.adapters.lakehouse.formats.hudi.settings.write_defaults import WRITE_DEFAULTS
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from dbt.adapters.lakehouse.storage import connector_jars
from dbt.adapters.lakehouse.storage import locations as storage
from tests.adapter.functional.concurrency.writers import (
    KEEP_ALL_COMMITS,
    LEAVES_CLEANING_TO_DBT,
    MODEL,
    ExternalWriter,
    commits,
    no_rollbacks,
    overlapping,
)
from tests.adapter.functional.crash import killed_creates
from tests.dbt_harness import DbtProject, completed_instants, hudi_jar, read_properties
from tests.s3_store import Store, running_store

DBT = Path(sys.executable).with_name("dbt")
BUCKET = "lake-test"
ACCESS, SECRET = "s3-test-access", "s3-test-secret-5f1d3c"

# Batch 1 writes orders 1-3; batch 2 sends order 2 again with ten times its
# amount and adds order 4: only an upsert by order_id gives 4 rows and 280.
ORDERS = """
{{ config(materialized='incremental', unique_key='order_id', incremental_strategy='merge',
          table_type='mor') }}
{% if var('batch') == 1 %}
select * from values (1, 'ann', 10), (2, 'bob', 20), (3, 'cid', 30) as t(order_id, customer, amount)
{% else %}
select * from values (2, 'bob', 200), (4, 'dan', 40) as t(order_id, customer, amount)
{% endif %}
"""
TOTALS = """
{{ config(materialized='table') }}
select count(*) as orders, sum(amount) as amount from {{ ref('orders') }}
"""
UPSERTED = """
select * from {{ ref('totals') }} where not (orders = 4 and amount = 280)
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with running_store(tmp_path_factory.mktemp("s3"), BUCKET, ACCESS, SECRET) as running:
        yield running


def s3_project(root: Path, store: Store, bucket: str = BUCKET, endpoint: str = "") -> DbtProject:
    project = DbtProject(root / "project", "s3t", root / "lake")
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    output = profile["lake_test"]["outputs"]["local"]
    output["warehouse_dir"] = f"s3a://{bucket}/warehouse"
    output["spark_conf"] = store.spark_conf()
    if endpoint:
        output["spark_conf"]["spark.hadoop.fs.s3a.endpoint"] = endpoint
    output["hudi_jar"] = str(hudi_jar())
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile))
    project.model("orders", ORDERS)
    project.model("totals", TOTALS)
    project.write("tests/upserted_totals.sql", UPSERTED)
    return project


def dbt(
    project: DbtProject, store: Store, *args: str, secret: str = ""
) -> subprocess.CompletedProcess:
    env = {**store.run_env(secret), "DBT_PROFILES_DIR": str(project.root)}
    return subprocess.run(
        [str(DBT), *args, "--project-dir", str(project.root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def dbt_broken_mid_write(project: DbtProject, store: Store, how: str, *args: str) -> str:
    """Runs dbt and, once the upsert's delta commit is in flight, kills dbt
    and its JVM with SIGKILL (`kill`) or stops the server (`stop`); returns
    what dbt printed."""
    env = {**store.run_env(), "DBT_PROFILES_DIR": str(project.root)}
    timeline = store.data / "warehouse" / "s3t.db" / "orders" / ".hoodie" / "timeline"
    before = set(timeline.glob("*.deltacommit.inflight"))
    with subprocess.Popen(
        [str(DBT), *args, "--project-dir", str(project.root)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    ) as run:
        deadline = time.monotonic() + 600
        while not set(timeline.glob("*.deltacommit.inflight")) - before:
            assert run.poll() is None, "dbt ended before its write began"
            assert time.monotonic() < deadline, "no delta commit began"
            time.sleep(0.05)
        if how == "kill":
            os.killpg(run.pid, signal.SIGKILL)
        else:
            store.stop()
        output, _ = run.communicate(timeout=900)
    assert run.returncode != 0, output[-3000:]
    return output


def test_a_project_builds_its_tables_in_a_bucket_through_a_kill_and_a_stopped_store(
    tmp_path, store
):
    project = s3_project(tmp_path, store)
    first = dbt(project, store, "run", "--vars", "{batch: 1}")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    # Batch 2's build is killed (kill -9 of dbt and its JVM) while its upsert
    # writes; then the server stops while the next attempt writes: that run
    # fails, saying why. Once the server is back, the same build completes
    # the batch, once.
    dbt_broken_mid_write(project, store, "kill", "build", "--vars", "{batch: 2}")
    broken = dbt_broken_mid_write(project, store, "stop", "build", "--vars", "{batch: 2}")
    assert f"The object store at 127.0.0.1:{store.port} stopped answering" in broken
    store.start()
    second = dbt(project, store, "build", "--vars", "{batch: 2}")
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]

    # The data test ran and passed: the totals are the upserted ones.
    results = json.loads((project.root / "target" / "run_results.json").read_text())["results"]
    statuses = {r["unique_id"].split(".")[-1]: r["status"] for r in results}
    assert statuses == {"orders": "success", "totals": "success", "upserted_totals": "pass"}

    # The tables are objects in the bucket: the orders a merge-on-read table
    # with one delta commit per batch (each broken write rolled back by the
    # next), and nothing in the local lake folder but the metastore.
    bucket = store.data / "warehouse" / "s3t.db"
    orders = bucket / "orders"
    props = read_properties(orders / ".hoodie" / "hoodie.properties")
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.recordkey.fields"] == "order_id"
    assert [a for _, _, a in completed_instants(orders)] == [
        "deltacommit",
        "rollback",
        "rollback",
        "deltacommit",
    ]
    assert (bucket / "totals" / ".hoodie" / "hoodie.properties").is_file()
    assert not (project.lake_dir / "warehouse").exists() or not any(
        (project.lake_dir / "warehouse").rglob("*.parquet")
    )
    # The catalog stays in the lake folder, whichever kind (lake/catalog.py).
    assert lake_catalog.kind_in(project.lake_dir) is not None

    # The secret key is in no file dbt wrote and no line it printed.
    for printed in (first.stdout + first.stderr, broken, second.stdout + second.stderr):
        assert SECRET not in printed
    for folder in ("target", "logs"):
        for path in (project.root / folder).rglob("*"):
            if path.is_file():
                assert SECRET not in path.read_text(errors="replace"), path


# What a user gets wrong, and the words of the error that must tell them.
REFUSALS = {
    "wrong keys": ("refused the access keys for bucket lake-test", "fs.s3a.secret.key"),
    "no bucket": ("has no bucket no-such-bucket", "create it"),
    "server down": ("cannot reach the S3 store at http://127.0.0.1:", "fs.s3a.endpoint"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_store_that_refuses_fails_the_connection_naming_the_fix(tmp_path, store, case):
    """The session's probe (storage/probe.py) asks once, without Hadoop's
    retries, as the session starts for any command: `dbt debug`'s connection
    test here (a `dbt run` ends the same way before its first model)."""
    bucket = "no-such-bucket" if case == "no bucket" else BUCKET
    endpoint = f"http://127.0.0.1:{free_port()}" if case == "server down" else ""
    project = s3_project(tmp_path, store, bucket=bucket, endpoint=endpoint)
    secret = "not-the-secret" if case == "wrong keys" else ""
    run = dbt(project, store, "debug", secret=secret)
    output = run.stdout + run.stderr
    assert run.returncode != 0, output[-3000:]
    assert "Connection test: [" in output and "ERROR" in output, output[-3000:]
    for words in REFUSALS[case]:
        assert words in output, output[-3000:]
    assert f"warehouse_dir: s3a://{bucket}/warehouse" in output


def test_two_writers_of_a_table_in_a_bucket_take_turns_by_a_zookeeper_lock(tmp_path, store):
    """dbt (`concurrency: optimistic`, `lock_provider: zookeeper`) and another
    Spark application write one table in the bucket at once, each its own
    partition, taking Hudi's lock in the project's ZooKeeper server
    (adlake.servers.lock_server): both keep every commit, nothing is rolled
    back, and the table holds each writer's last rows once."""
    port = free_port()
    lock_server.start(port, tmp_path / "zookeeper")
    try:
        nodes = lock_server.node_count(port)
        url = f"127.0.0.1:{port}"
        project = DbtProject(tmp_path / "project", "s3w", tmp_path / "lake")
        profile = yaml.safe_load((project.root / "profiles.yml").read_text())
        output = profile["lake_test"]["outputs"]["local"]
        output.update(
            warehouse_dir=f"s3a://{BUCKET}/warehouse",
            spark_conf=store.spark_conf(),
            hudi_jar=str(hudi_jar()),
            concurrency="optimistic",
            lock_provider="zookeeper",
            server_side_parameters={concurrency.ZOOKEEPER_URL: url},
        )
        (project.root / "profiles.yml").write_text(yaml.safe_dump(profile))
        project.model("shared", MODEL)
        first = dbt(project, store, "run", "--vars", "{run: 1}")
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]

        table = store.data / "warehouse" / "s3w.db" / "shared"
        settings = {
            **WRITE_DEFAULTS,
            **concurrency.hudi_settings(
                concurrency.OPTIMISTIC, "zookeeper", {concurrency.ZOOKEEPER_URL: url}
            ),
            concurrency.ZOOKEEPER_URL: url,
            **KEEP_ALL_COMMITS,
            **LEAVES_CLEANING_TO_DBT,
        }
        session = {
            **storage.S3A_SESSION_DEFAULTS,
            **{k: v for k, v in store.spark_conf().items() if "key" not in k},
            "spark.hadoop.fs.s3a.access.key": store.access,
            "spark.hadoop.fs.s3a.secret.key": store.secret,
            "spark.jars": ",".join(
                str(j) for j in connector_jars.connector_jars(f"s3a://{BUCKET}", {}, print)
            ),
        }
        writer = ExternalWriter(
            tmp_path,
            f"s3a://{BUCKET}/warehouse/s3w.db/shared",
            "s3w",
            "ext",
            settings,
            env={**os.environ, "EXTERNAL_WRITER_SPARK_CONF": json.dumps(session)},
        )
        runs = 1
        try:
            writer.wait_for_commits(1)
            # Until a dbt commit and the other's have been in flight together.
            while runs < 2 or (not overlapping(table) and runs < 5):
                runs += 1
                run = dbt(project, store, "run", "--vars", f"{{run: {runs}}}")
                assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        finally:
            attempts = writer.stop()
        # The lock went through ZooKeeper: the table's lock path is there.
        assert lock_server.node_count(port) > nodes
    finally:
        lock_server.stop(tmp_path / "zookeeper")
    assert overlapping(table), commits(table)
    assert all(a["ok"] for a in attempts), [a for a in attempts if not a["ok"]]
    assert no_rollbacks(table)
    assert not list((table / ".hoodie").rglob("*lock*")), "a lock file in the bucket"
    written = len(attempts)
    assert [p for _, _, p in commits(table)].count("ext") == written
    assert [p for _, _, p in commits(table)].count("dbt") == runs
    assert writer.rows() == [
        ("dbt", 200, 200, runs, runs),
        ("ext", 50, 50, 1000 + written, 1000 + written),
    ]


def test_a_run_killed_while_it_creates_its_tables_in_a_bucket_leaves_a_lake_the_next_completes(
    tmp_path, store
):
    """crash/test_killed_create.py's twelve tables, in a bucket: a run held
    where each table's folder is written and the catalog not yet told, and
    killed; the next run removes what was never committed (through the
    store: the placeholder's DROP deletes objects) and completes every table."""
    project = DbtProject(tmp_path / "project", "s3k", tmp_path / "lake")
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    output = profile["lake_test"]["outputs"]["local"]
    output.update(warehouse_dir=f"s3a://{BUCKET}/warehouse", spark_conf=store.spark_conf())
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile))
    env = store.run_env()
    killed_creates.kill_while_creating(project, env)
    bucket = store.data / "warehouse" / "s3k.db"
    for kind in killed_creates.KINDS:
        folder = bucket / killed_creates.node(kind, "hudi")
        assert (folder / ".hoodie" / "hoodie.properties").is_file()
        assert completed_instants(folder) == []

    run = killed_creates.complete(project, env)
    removed, taken_over = killed_creates.found_by_next_run(run.output())
    assert removed == killed_creates.ALL_NODES - killed_creates.TAKEN_OVER
    assert taken_over == killed_creates.TAKEN_OVER
    assert killed_creates.leftover_names(bucket) == []
    assert not (project.lake_dir / "warehouse").exists()
