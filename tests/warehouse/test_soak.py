"""The soak's short version (adlake.bench.soak; the documented command runs 50
batches): a few batches with table-service triggers small enough that
dwd_billing_events compacts, cleans and archives among them.

Every batch is one `dbt build`, so each batch passes every data test of the
project (costs conserved layer to layer, landed = valid + quarantined + held,
...), and the spend in ADS must equal the generator's truth at the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.dbt_harness import REPO, completed_instants, hudi_jar

# Cleaning keeps 1 commit; archiving trims the active timeline to 2 commits
# once it holds more than 3 (Hudi requires the minimum above what cleaning
# keeps): the smallest settings with which three batches compact, clean and
# archive.
SERVICES = "{dwd_compaction_delta_commits: 2, dwd_cleaning_retain: 1, dwd_archive_min_commits: 2, dwd_archive_max_commits: 3}"
BATCHES = 3


def test_a_short_soak_compacts_cleans_archives_and_stays_exact(tmp_path):
    env = {**os.environ, "LAKEHOUSE_HUDI_JAR": str(hudi_jar())}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "adlake.bench.soak",
            "--batches",
            str(BATCHES),
            "--events-per-batch",
            "60",
            "--lake",
            str(tmp_path),
            "--vars",
            SERVICES,
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    figures = json.loads(run.stdout.split("soak figures: ", 1)[1].splitlines()[0])
    assert figures["spend_micros"] == figures["truth_micros"]
    lines = figures["lines"]
    assert lines["landed"] == lines["valid"] + lines["quarantined"] + lines["held"] > 0

    # Each table service ran: a compaction every 2 delta commits, a clean after them.
    completed = figures["completed"]
    assert completed["deltacommit"] == BATCHES
    assert completed["commit"] >= BATCHES // 2
    assert completed["clean"] >= 1

    # Archiving moved the oldest instants out of the active timeline, which
    # stays bounded: at most the 3 commits kept plus one batch's instants.
    dwd = tmp_path / "lake" / "warehouse" / "soak_dwd.db" / "dwd_billing_events"
    assert list((dwd / ".hoodie" / "timeline" / "history").glob("*.parquet"))
    active = completed_instants(dwd)
    assert len(active) < sum(completed.values())
    assert figures["max_active_timeline"] <= 3 + 3
