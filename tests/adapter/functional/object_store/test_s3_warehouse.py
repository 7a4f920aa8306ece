"""A dbt project whose tables live in a bucket: `warehouse_dir: s3a://...` on
the embedded session, against the project's real S3 server
(adlake.servers.object_store, s3proxy on 127.0.0.1).

dbt runs as a user runs it, the CLI in a process of its own (its session's
warehouse and jars are not those of the test process's session), twice: a
merge-on-read upsert and the table built from it, then the second batch and
a data test that holds only for the upserted figures. The tables are read
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
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from adlake.servers import object_store
from adlake.servers.catalog import free_port
from tests.dbt_harness import DbtProject, completed_instants, hudi_jar, read_properties

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
    folder = tmp_path_factory.mktemp("s3")
    port = free_port()
    keys = {object_store.ACCESS_KEY_ENV: ACCESS, object_store.SECRET_KEY_ENV: SECRET}
    saved = {name: os.environ.get(name) for name in keys}
    os.environ.update(keys)
    try:
        object_store.start(port, folder, bucket=BUCKET)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    yield object_store.status(folder)
    object_store.stop(folder)


def s3_project(root: Path, store: dict) -> DbtProject:
    project = DbtProject(root / "project", "s3t", root / "lake")
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    output = profile["lake_test"]["outputs"]["local"]
    output["warehouse_dir"] = f"s3a://{BUCKET}/warehouse"
    output["spark_conf"] = {
        "spark.hadoop.fs.s3a.access.key": "{{ env_var('S3_TEST_ACCESS_KEY') }}",
        "spark.hadoop.fs.s3a.secret.key": "{{ env_var('S3_TEST_SECRET_KEY') }}",
        "spark.hadoop.fs.s3a.endpoint": store["endpoint"],
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
    }
    output["hudi_jar"] = str(hudi_jar())
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile))
    project.model("orders", ORDERS)
    project.model("totals", TOTALS)
    project.write("tests/upserted_totals.sql", UPSERTED)
    return project


def dbt(project: DbtProject, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "S3_TEST_ACCESS_KEY": ACCESS, "S3_TEST_SECRET_KEY": SECRET}
    env["DBT_PROFILES_DIR"] = str(project.root)
    return subprocess.run(
        [str(DBT), *args, "--project-dir", str(project.root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_a_project_builds_its_tables_in_a_bucket(tmp_path, store):
    project = s3_project(tmp_path, store)
    first = dbt(project, "run", "--vars", "{batch: 1}")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    second = dbt(project, "build", "--vars", "{batch: 2}")
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]

    # The data test ran and passed: the totals are the upserted ones.
    results = json.loads((project.root / "target" / "run_results.json").read_text())["results"]
    statuses = {r["unique_id"].split(".")[-1]: r["status"] for r in results}
    assert statuses == {"orders": "success", "totals": "success", "upserted_totals": "pass"}

    # The tables are objects in the bucket: the orders a merge-on-read table
    # with one delta commit per batch, and nothing in the local lake folder
    # but the metastore.
    bucket = Path(store["data"]) / BUCKET / "warehouse" / "s3t.db"
    orders = bucket / "orders"
    props = read_properties(orders / ".hoodie" / "hoodie.properties")
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.recordkey.fields"] == "order_id"
    assert [a for _, _, a in completed_instants(orders)] == ["deltacommit", "deltacommit"]
    assert (bucket / "totals" / ".hoodie" / "hoodie.properties").is_file()
    assert not (project.lake_dir / "warehouse").exists() or not any(
        (project.lake_dir / "warehouse").rglob("*.parquet")
    )
    assert (project.lake_dir / "metastore_db").is_dir()

    # The secret key is in no file dbt wrote and no line it printed.
    for run in (first, second):
        assert SECRET not in run.stdout + run.stderr
    for folder in ("target", "logs"):
        for path in (project.root / folder).rglob("*"):
            if path.is_file():
                assert SECRET not in path.read_text(errors="replace"), path
