"""The warehouse on Iceberg and on Delta tables (the `table_format` var),
killed with SIGKILL at a named point of its DWD table's commit, ends after
the next run with exactly the generator's totals, each landed line once.

A child process (warehouse_batches.py) builds batch 1, then a second child
builds batch 2 and is killed (its whole process group: Python and its Spark
JVM) when dwd_billing_events' MERGE has written data files and not yet
committed them: for Iceberg, before its new metadata file; for Delta, before
its _delta_log entry. The kill must land at the point (no commit file after
the data files); the next child builds batch 2 again, at once, then every
data test; its totals (spend in ADS, billable events in DWD) equal the
generator's truth, so nothing was counted twice or lost, and each landed
file's lines are rows of ODS once. The Hudi warehouse's named kills are
test_killed_warehouse.py's.
"""

from __future__ import annotations

import json

import pytest

from adlake.generator import generate
from tests.dbt_harness import hudi_jar
from tests.warehouse.warehouse_batches import (
    POINTS,
    Chain,
    check_landed,
    parse_digest,
    parse_totals,
    prepare_work,
)

EVENTS, BATCHES = 1500, 2


@pytest.mark.parametrize(
    "table_format, point",
    [("iceberg", "iceberg_data_before_metadata"), ("delta", "delta_data_before_log")],
)
def test_a_kill_between_the_data_files_and_the_commit_is_completed_once(
    tmp_path, table_format, point
):
    generated = tmp_path / "generated"
    truth = generate(generated, seed=5, events=EVENTS, batches=BATCHES)["batches"]
    work = prepare_work(tmp_path / "work", "crash", generated, hudi_jar())
    options = ["--vars", json.dumps({"table_format": table_format}), "--no-tests"]
    Chain(work, 1, options).finish()

    chain = Chain(work, BATCHES, options, first=2)
    kill = chain.kill_at(POINTS[point])
    assert kill.held, kill.describe()
    assert kill.batch == 2, kill.describe()
    child = chain.finish("--test-after", "--digest")
    output = child.output()
    assert "the data tests failed" not in output, child.tail()
    assert parse_totals(output) == {
        "cost_micros": truth[-1]["cost_micros"],
        "events": truth[-1]["events"],
    }, child.tail()
    _, landed = parse_digest(output)
    assert landed and check_landed(work, landed) == [], check_landed(work, landed)
