"""The soak's short version (adlake.bench.soak; the documented command runs 50
batches): two batches, each one `dbt build` in the soak's long-running
process, so each passes every data test of the project (costs conserved
layer to layer, landed = valid + quarantined + held, ...), and the spend in
ADS must equal the generator's truth at the end. The second batch's write
compacts dwd_billing_events inline.

That compaction, cleaning and archiving keep a long stream's timeline
bounded is checked on continuous mode's builds, the path a stream runs
(tests/warehouse/test_continuous.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.dbt_harness import REPO, hudi_jar

# A compaction every 2 delta commits: the second batch's build compacts.
SERVICES = "{dwd_compaction_delta_commits: 2}"
BATCHES = 2


def test_a_short_soak_builds_batch_after_batch_and_stays_exact(tmp_path):
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

    # The second batch's write compacted DWD inline (a compaction completes
    # as a `commit` on a merge-on-read table).
    completed = figures["completed"]
    assert completed["deltacommit"] == BATCHES
    assert completed["commit"] == 1
    # The figures a long soak watches were taken after each batch.
    assert figures["max_active_timeline"] >= BATCHES
    assert all(mib > 0 for mib in (*figures["jvm_mib"], *figures["heap_mib"]))
