"""A lake whose catalog is a folder of files (`lake_catalog: folder`,
lake/catalog.py): its schemas, tables, views and their settings written as
they change, read back by the next process on the lake, with no Hive
metastore started; a lake keeps the kind it was made with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.dbt_harness import DbtProject, failures

PAYMENTS = "id,amount\n1,10.25\n2,20.50\n3,30.75\n"
MORE_PAYMENTS = "4,40.00\n5,0.01\n"
# Each row says whether the run that wrote it found the table in the catalog.
TOTALS = """
{{ config(materialized='incremental', unique_key='id', incremental_strategy='merge') }}
select id, amount, '{{ 'incremental' if is_incremental() else 'first' }}' as built
from {{ ref('payments') }}
{% if is_incremental() %} where id > (select max(id) from {{ this }}) {% endif %}
"""
SUMMARY = "{{ config(materialized='table') }} select count(*) as n from {{ ref('totals') }}"
BIG = "select * from {{ ref('totals') }} where amount > 20"
PARTITIONED = """
{{ config(materialized='table', file_format='parquet', partition_by=['built']) }}
select id, built from {{ ref('totals') }}
"""
DOCS = """
version: 2
models:
  - name: summary
    description: how many payments
    config: {persist_docs: {relation: true}}
"""
# dbt commands in one process, one after another: each argument is a
# project folder and its command, split by a colon.
IN_ONE_PROCESS = """
import sys
from dbt.adapters.factory import reset_adapters
from dbt.cli.main import dbtRunner
for step in sys.argv[1:]:
    folder, command = step.split(":")
    result = dbtRunner().invoke([command, *(["read_back"] if command == "run-operation" else []),
                                 "--project-dir", folder, "--profiles-dir", folder])
    reset_adapters()
    if not result.success:
        sys.exit(f"{command} in {folder} failed: {result.exception}")
"""
READ_BACK_MACRO = """
{% macro read_back() %}
  {% set gone = target.schema ~ "_gone" %}
  {% do run_query("create schema " ~ gone) %}
  {% do run_query("create table " ~ gone ~ ".t using parquet as select 1 as x") %}
  {% do run_query("drop schema " ~ gone ~ " cascade") %}
  {% set totals = run_query("select built, count(*), cast(round(sum(amount) * 100) as bigint)
                              from " ~ target.schema ~ ".totals group by built order by built") %}
  {% set view = run_query("select count(*) from " ~ target.schema ~ ".big") %}
  {% set parts = run_query("show partitions " ~ target.schema ~ ".by_build") %}
  {% set summary = run_query("describe table extended " ~ target.schema ~ ".summary") %}
  {% set comment = summary.rows | selectattr(0, 'equalto', 'Comment') | map(attribute=1) | list %}
  {% do print("READ " ~ tojson({
      "totals": totals.rows | map('list') | list,
      "big": view.rows[0][0],
      "partitions": parts.rows | map(attribute=0) | list,
      "comment": comment,
  })) %}
{% endmacro %}
"""


def folder_project(root: Path, schema: str) -> DbtProject:
    project = DbtProject(root, schema, root / ".lake", "folder")
    project.write("seeds/payments.csv", PAYMENTS)
    project.model("totals", TOTALS)
    project.model("summary", SUMMARY)
    project.model("big", BIG)
    project.model("by_build", PARTITIONED)
    project.write("models/docs.yml", DOCS)
    project.write("macros/read_back.sql", READ_BACK_MACRO)
    return project


def in_one_process(*steps: tuple[DbtProject, str]) -> dict:
    """dbt commands run in one process of their own, Spark in it (no warm
    server): what it printed, by line, of the `read_back` operation."""
    env = {**os.environ, "LAKEHOUSE_WARM_START": "0"}
    env.pop("LAKEHOUSE_LAKE_CATALOG", None)
    arguments = [f"{project.root}:{command}" for project, command in steps]
    done = subprocess.run(
        [sys.executable, "-c", IN_ONE_PROCESS, *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("READ ")]
    return json.loads(lines[-1][len("READ ") :]) if lines else {}


def test_a_lake_whose_catalog_is_a_folder_keeps_it_from_one_process_to_the_next(tmp_path):
    first = folder_project(tmp_path / "first", "folder_catalog")
    second = folder_project(tmp_path / "second", "folder_catalog_b")
    # One process builds both projects, its session moving from lake to lake.
    in_one_process((first, "build"), (second, "build"))
    for project in (first, second):
        lake = project.lake_dir
        # No Hive metastore: the catalog is the folder, a file per relation.
        assert not (lake / "metastore_db").exists()
        catalog = lake / "catalog"
        files = {path.relative_to(catalog).as_posix() for path in catalog.rglob("*.json")}
        names = ("_schema", "payments", "totals", "summary", "big", "by_build")
        assert files == {f"{project.schema}/{name}.json" for name in names} | {
            "default/_schema.json"
        }
    view = json.loads((first.lake_dir / "catalog" / "folder_catalog" / "big.json").read_text())
    assert view["tableType"] == "VIEW" and "amount > 20" in view["viewOriginalText"]

    # The next process finds every table of the first lake: the incremental
    # model merges into its table (the first rows stay 'first'), the view,
    # the partitions and the persisted comment are there.
    first.write("seeds/payments.csv", PAYMENTS + MORE_PAYMENTS)
    found = in_one_process((first, "build"), (first, "run-operation"))
    assert found["totals"] == [["first", 3, 6150], ["incremental", 2, 4001]]
    assert found["big"] == 3
    assert sorted(found["partitions"]) == ["built=first", "built=incremental"]
    assert found["comment"] == ["how many payments"]
    # A schema dropped with its tables leaves no file behind.
    assert not (first.lake_dir / "catalog" / "folder_catalog_gone").exists()
    assert (first.lake_dir / "catalog" / "folder_catalog").is_dir()

    # A profile that names the other kind is refused before anything is
    # written (here, in the suite's own process: its session stays put).
    profile = (first.root / "profiles.yml").read_text()
    first.write("profiles.yml", profile.replace("lake_catalog: folder", "lake_catalog: metastore"))
    failed = first.dbt("run", expect_ok=False)
    assert "keeps its catalog in" in str(failed.exception) + " ".join(failures(failed))
