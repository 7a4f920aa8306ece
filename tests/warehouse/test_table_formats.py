"""The warehouse on Iceberg and on Delta tables, beside its Hudi build: the
project's `table_format` var builds every model in one format, and
`python -m adlake.runner.compare_targets --formats hudi,iceberg,delta` (run
here as a user runs it, in a process of its own: its embedded session loads
the three formats' jars, which this worker's session, started with Hudi's
only, cannot) builds the same generated batches once per format, checks
each batch's totals against the generator's truth, runs every data test on
whole tables after the last (`--checks at-end`: the per-batch checks are the
Hudi warehouse's tests'), and compares the Iceberg and Delta builds' ADS
tables with Hudi's, row by row."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from adlake import ROOT

BATCHES, EVENTS = 2, 2000
FORMATS = ("hudi", "iceberg", "delta")


def test_the_warehouse_on_iceberg_and_delta_equals_its_hudi_build(tmp_path: Path):
    work = tmp_path / "work"
    # In-process Spark (no warm server): the JVM ends with the process.
    env = {**os.environ, "LAKEHOUSE_WARM_START": "0", "PYTHONUNBUFFERED": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "adlake.runner.compare_targets", "--targets", "local"]
        + ["--formats", ",".join(FORMATS), "--checks", "at-end"]
        + ["--batches", str(BATCHES), "--events", str(EVENTS)]
        + ["--work", str(work), "--json", str(tmp_path / "figures.json")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=2400,
    )
    out = run.stdout
    assert run.returncode == 0, out[-4000:] + run.stderr[-4000:]

    labels = ("local", "local/iceberg", "local/delta")  # Hudi's, Iceberg's, Delta's
    for label in labels:
        # Each batch built, and its totals (ADS spend, DWD events) equalled
        # the truth: the line is printed only then.
        built = re.findall(rf"^{label}: batch (\d)/{BATCHES} built \[([^]]*)\]", out, re.M)
        assert [b for b, _ in built] == [str(b) for b in range(1, BATCHES + 1)], out[-4000:]
        for _, tally in built:
            assert "success" in tally and "error" not in tally and "fail" not in tally, tally
        [tested] = re.findall(rf"^{label}: dbt test \[([^]]*)\]", out, re.M)
        assert "pass" in tested and "fail" not in tested and "error" not in tested, tested
        # The ADS tables equal the Hudi build's, row by row.
        assert re.search(rf"^{re.escape(label)} .*identical, row by row$", out, re.M), out[-2000:]
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert set(figures) == set(labels)
    assert all(not f["differences"] for f in figures.values())

    # The tables are of the format asked for, on disk: Iceberg's in its
    # catalog's folder (metadata files), Delta's with their _delta_log.
    warehouse = work / "local" / "lake" / "warehouse"
    iceberg_dwd = warehouse / "iceberg" / "adlake_iceberg_dwd" / "dwd_billing_events"
    assert list((iceberg_dwd / "metadata").glob("*.metadata.json"))
    delta_dwd = warehouse / "adlake_delta_dwd.db" / "dwd_billing_events"
    assert list((delta_dwd / "_delta_log").glob("*.json"))
    assert not (delta_dwd / ".hoodie").exists()
    assert (warehouse / "adlake_dwd.db" / "dwd_billing_events" / ".hoodie").is_dir()
