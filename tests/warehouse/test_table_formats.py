"""The warehouse on Iceberg and on Delta tables (the project's `table_format`
var), killed with SIGKILL at a named point of its DWD table's commit: after
the next run every data test passes, the totals equal the generator's truth,
each landed line is in ODS once, and every table equals the Hudi build's of
the same batches, row by row.

Each build is a child process (warehouse_batches.py; its embedded session
loads the formats' jars, which this worker's session, started with Hudi's
only, cannot). The Hudi build is the uninterrupted one test_killed_warehouse.py
compares with (hudi_reference.py: one per test run, on the same generated
data), which prints its digest after batch 2 too. On each format a first
child is killed in batch 1 while its first table is created (its first commit
written, the session catalog not yet told: a point of the JVM's code,
warehouse_batches.HeldPoint); the next builds batch 1 and goes on to batch
2, where it is killed (its whole process
group: Python and its Spark JVM) when dwd_billing_events' MERGE has written
data files and not yet committed them (Iceberg: before its new metadata
file; Delta: before its _delta_log entry); the kill must land at the point
(no commit file after the data files); the next child builds batch 2 again,
at once, then every data test, and prints a digest of every table. The Hudi
warehouse's named kills are test_killed_warehouse.py's; `python -m
adlake.runner.compare_targets --formats hudi,iceberg,delta` compares the
three formats' builds batch by batch, on one session (docs/warehouse.md).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.dbt_harness import hudi_jar
from tests.warehouse.hudi_reference import BATCHES as BATCHES_HUDI
from tests.warehouse.hudi_reference import DIGEST_AFTER, SCHEMA
from tests.warehouse.warehouse_batches import (
    FIRST_CREATE,
    POINTS,
    Chain,
    ChainFailed,
    Work,
    check_landed,
    compare_digests,
    parse_digest,
    parse_totals,
    prepare_work,
)

[BATCHES] = DIGEST_AFTER  # the reference's digest after this batch is the Hudi build's
KILL_POINTS = {"iceberg": "iceberg_data_before_metadata", "delta": "delta_data_before_log"}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("table_formats")


@pytest.mark.parametrize("table_format", list(KILL_POINTS))
def test_killed_between_its_data_files_and_its_commit_it_ends_equal_to_the_hudi_build(
    root, hudi_reference, table_format
):
    work = prepare_work(root / table_format, SCHEMA, hudi_reference.generated, hudi_jar())
    options = ["--vars", json.dumps({"table_format": table_format}), "--no-tests"]
    chain = Chain(work, BATCHES, options)
    try:
        # Batch 1's first table created is killed where its first commit is
        # written and the session catalog not yet told; then batch 2's DWD write.
        created = chain.kill_held(FIRST_CREATE[table_format])
        kill = chain.kill_at(POINTS[KILL_POINTS[table_format]], after=BATCHES - 1)
        final = chain.finish("--test-after", "--digest")
    except ChainFailed as exc:
        pytest.fail(str(exc))
    assert kill.held, kill.describe()
    assert kill.batch == BATCHES, kill.describe()
    assert created.batch == 1 and created.running, created.describe()
    after = "\n".join(log.read_text() for log in sorted(work.root.glob("child_*.log")))
    assert f"{created.running} is not in the catalog" in after, created.describe()
    output = final.output()
    assert "the data tests failed" not in output, final.tail()
    truth = hudi_reference.truth(BATCHES)
    assert parse_totals(output) == {
        "cost_micros": truth["cost_micros"],
        "events": truth["events"],
    }, final.tail()
    digests, landed = parse_digest(output)
    assert landed and check_landed(work, landed) == [], check_landed(work, landed)
    # Every table of every layer, row by row, as the Hudi build's (Hudi's
    # meta columns and the columns set from a clock left out).
    hudi, _ = parse_digest(hudi_reference.after(BATCHES))
    assert {name.split(".")[0] for name in hudi} == {
        f"{SCHEMA}_{layer}" for layer in ("ref", "ods", "dwd", "dws", "ads")
    }
    assert compare_digests(hudi, digests) == []

    # The tables are of the format asked for, on disk: Iceberg's in its
    # catalog's folder (metadata files), Delta's with their _delta_log.
    if table_format == "iceberg":
        dwd = work.warehouse / "iceberg" / f"{SCHEMA}_dwd" / "dwd_billing_events"
        assert list((dwd / "metadata").glob("*.metadata.json"))
    else:
        dwd = work.table_dir("dwd", "dwd_billing_events")
        assert list((dwd / "_delta_log").glob("*.json"))
    assert not (dwd / ".hoodie").exists()
    assert (hudi_reference.work.table_dir("dwd", "dwd_billing_events") / ".hoodie").is_dir()


# --- the same tables, read outside Spark -------------------------------------------

READERS_PYTHON = Path(__file__).resolve().parents[2] / ".cache" / "readers" / "bin" / "python"
READ_TABLES = Path(__file__).resolve().parents[1] / "readers" / "read_tables.py"
# The warehouse's checked figures (compare_targets.totals): the ADS spend and
# the DWD events, under the names of the generator's truth.
FIGURES = {
    "cost_micros": ("ads", "ads_spend_by_industry", "spend_micros"),
    "events": ("dwd", "dwd_billing_events", None),
}


def read_outside_spark(tables: list[dict]) -> dict:
    """What read_tables.py's readers (hudi-rs, PyIceberg, delta-rs) read."""
    assert READERS_PYTHON.exists(), "no readers' virtualenv: run tools/setup.sh --tests"
    done = subprocess.run(
        [str(READERS_PYTHON), str(READ_TABLES), json.dumps(tables)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_readers_outside_spark_read_the_warehouse_each_format_wrote(root, hudi_reference):
    """hudi-rs, PyIceberg and delta-rs from PyPI, no JVM, read the tables the
    adapter wrote, and their figures equal the generator's truth: the Hudi
    build's after its last batch (dwd_billing_events merge-on-read, compacted
    and cleaned), the Iceberg and Delta builds' after theirs (batch 2, the
    chains above). delta-rs refuses a merge-on-read Delta table, whose
    deletion vectors it cannot read (adapter/README.md says so)."""
    hudi_reference.output()  # the build has ended
    builds = {
        "hudi": (hudi_reference.work, hudi_reference.truth(BATCHES_HUDI)),
        **{
            fmt: (Work(root / fmt), hudi_reference.truth(BATCHES))
            for fmt in KILL_POINTS
            if (root / fmt / "work.json").exists()
        },
    }
    assert set(builds) == {"hudi", *KILL_POINTS}, "the chains above left no build"
    tables, expected = [], {}
    for fmt, (work, truth) in builds.items():
        for figure, (layer, name, column) in FIGURES.items():
            path = (
                work.warehouse / "iceberg" / f"{work.schema}_{layer}" / name
                if fmt == "iceberg"
                else work.table_dir(layer, name)
            )
            tables.append({"format": fmt, "path": str(path), "sum": [column] if column else []})
            expected[str(path)] = (fmt, name, figure, column, truth[figure])
    read = read_outside_spark(tables)
    for path, (fmt, name, figure, column, truth) in expected.items():
        found = read[path]
        if fmt == "delta" and name == "dwd_billing_events":  # table_type: mor
            assert "deletionVectors" in found.get("error", ""), found
            continue
        assert "error" not in found, (fmt, name, found)
        value = found["sums"][column] if column else found["rows"]
        assert value == truth, (fmt, name, figure, value, truth)
