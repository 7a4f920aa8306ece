"""The table-format seam, proved by a format the adapter does not know:
plain parquet tables (parquet_format.py), installed as another package
would install one, an entry point of the group dbt_lakehouse.table_formats
on the path of the dbt processes (and so of the lake's warm server they
start), with its write macro in the project.

Its models build, append and overwrite partitions beside a Hudi model that
reads them; the configs and strategy it does not take, and a change read of
one of its tables, fail with the errors every format's get. Real dbt
processes on a lake of their own; the fixture stops its server by pid.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapter.functional.formats import parquet_format
from tests.warm_lake import WarmLake

ENTRY_POINT_GROUP = "dbt_lakehouse.table_formats"
PLUGIN = "lakehouse_test_parquet"

# (id, amount, day) of each batch.
BATCHES = {
    1: [(1, 10, "2026-01-01"), (2, 20, "2026-01-02")],
    2: [(3, 30, "2026-01-02"), (4, 40, "2026-01-03")],
}
CHANGES = (
    "{% set batches = "
    + json.dumps(
        {
            str(b): " union all ".join(
                f"select {i} as id, {a} as amount, date'{d}' as day" for i, a, d in rows
            )
            for b, rows in BATCHES.items()
        }
    )
    + " %}\n{{ batches[var('batch') | string] }}\n"
)
MODELS = {
    "changes": "{{ config(materialized='view') }}\n" + CHANGES,
    # Rebuilt whole each run.
    "plain_orders": "{{ config(materialized='table', file_format='parquet', partition_by='day') }}\n"
    "select id, amount, day from {{ ref('changes') }}",
    "plain_log": "{{ config(materialized='incremental', file_format='parquet') }}\n"
    "select {{ var('batch') }} as batch, id, amount from {{ ref('changes') }}",
    # Each run replaces the days its batch has.
    "plain_days": "{{ config(materialized='incremental', file_format='parquet',\n"
    "  incremental_strategy='insert_overwrite', partition_by='day') }}\n"
    "select id, amount, day from {{ ref('changes') }}",
    # A Hudi model (the default format) reading one of its tables.
    "hudi_totals": "{{ config(materialized='table', unique_key='batches') }}\n"
    "select count(distinct batch) as batches, sum(amount) as amount from {{ ref('plain_log') }}",
    # What it does not take, each enabled only when asked for.
    "bad_key": "{{ config(materialized='incremental', file_format='parquet', unique_key='id',\n"
    "  enabled=var('bad', false)) }}\nselect id from {{ ref('changes') }}",
    "bad_strategy": "{{ config(materialized='incremental', file_format='parquet',\n"
    "  incremental_strategy='merge', enabled=var('bad', false)) }}\n"
    "select id from {{ ref('changes') }}",
    "bad_changes": "{{ config(materialized='incremental', unique_key='id',\n"
    "  enabled=var('bad', false)) }}\n"
    "select id, amount from {{ lake_changes(ref('plain_log')) }}",
}


def install_plugin(folder: Path) -> None:
    """The format as a package with its entry point: the module and a
    dist-info that names it, found on the path like an installed package."""
    folder.mkdir()
    (folder / f"{PLUGIN}.py").write_text(inspect.getsource(parquet_format))
    info = folder / f"{PLUGIN}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {PLUGIN.replace('_', '-')}\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nparquet = {PLUGIN}:PARQUET\n")


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Iterator[WarmLake]:
    warm = WarmLake(tmp_path_factory.mktemp("plugin"), MODELS)
    install_plugin(warm.root / "plugin")
    (warm.project / "macros").mkdir()
    (warm.project / "macros" / "parquet_format.sql").write_text(parquet_format.PARQUET_MACROS)
    try:
        yield warm
    finally:
        warm.stop_all()


def dbt(lake: WarmLake, *args: str) -> tuple[int, str]:
    path = os.pathsep.join(
        p for p in (str(lake.root / "plugin"), os.environ.get("PYTHONPATH")) if p
    )
    return lake.dbt(*args, env=lake.env(PYTHONPATH=path))


def test_a_format_from_another_package_builds_appends_and_overwrites(lake):
    for batch in (1, 2):
        code, output = dbt(lake, "run", "--vars", json.dumps({"batch": batch}))
        assert code == 0, output
    # Rebuilt: the last batch only.
    assert lake.query("select count(*), sum(amount) from warm.plain_orders") == (2, 70)
    # Appended: both batches.
    assert lake.rows("select batch, sum(amount) from warm.plain_log group by batch order by 1") == [
        (1, 30),
        (2, 70),
    ]
    # Overwritten by day: 2026-01-02 holds batch 2's row only, 2026-01-01 batch 1's.
    assert lake.rows("select id from warm.plain_days order by id") == [(1,), (3,), (4,)]
    # The Hudi model read the plugin's table.
    assert lake.query("select batches, amount from warm.hudi_totals") == (2, 100)
    # Its tables are parquet tables: the catalog says so, and no format's
    # metadata folder is beside the partition folders.
    details = {str(r[0]): str(r[1]) for r in lake.rows("describe table extended warm.plain_days")}
    assert details["Provider"] == "parquet"
    folder = Path(details["Location"].removeprefix("file:"))
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(("_", "."))) == [
        "day=2026-01-01",
        "day=2026-01-02",
        "day=2026-01-03",
    ]
    assert not (folder / ".hoodie").exists()
    # Each was created by the format's own macro (dbt-spark's would also
    # write parquet, without this property).
    for table in ("plain_orders", "plain_log", "plain_days"):
        properties = dict(lake.rows(f"show tblproperties warm.{table}"))
        assert properties.get("written_by") == "lakehouse_parquet__write_model", table


def test_what_it_does_not_take_fails_with_the_usual_errors(lake):
    code, output = dbt(
        lake,
        "run",
        "--select",
        "bad_key",
        "bad_strategy",
        "bad_changes",
        "--vars",
        json.dumps({"batch": 2, "bad": True}),
    )
    assert code == 1, output
    flat = " ".join(output.split())
    assert (
        "Model 'bad_key': config 'unique_key' = 'id' is not valid. It does nothing for "
        "file_format 'parquet'. file_format 'parquet' does not take it." in flat
    )
    assert (
        "Model 'bad_strategy': config 'incremental_strategy' = 'merge' is not valid. On "
        "file_format 'parquet' use one of: append, insert_overwrite." in flat
    )
    assert (
        "Model 'bad_changes' reads the changes of warm.plain_log, a parquet table: change "
        "reads read Hudi, Iceberg and Delta tables." in flat
    )
