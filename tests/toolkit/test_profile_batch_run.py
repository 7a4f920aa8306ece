"""The batch profiler (adlake.bench.profile_batch) on a small warehouse of its own:
two batches, the second profiled, with dwd_billing_events' compaction and
cleaning set to run in that batch. Its breakdown comes from the real event log,
run results and timelines, so it must find the compaction where Hudi ran it.
Batch 1 is set-up, built with `dbt run` (--preload-chunk): its data tests
would check nothing the profile is asked about (the warehouse's own tests run
them batch after batch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from adlake import ROOT
from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle

SERVICES = "{dwd_compaction_delta_commits: 2, dwd_cleaning_retain: 1}"


def test_the_profile_of_a_batch_splits_its_time_where_it_went(tmp_path):
    profile = tmp_path / "profile.json"
    jar = hudi_bundle.locate(cache_dir=ROOT / maven.DEFAULT_CACHE_DIR)
    env = {**os.environ, "LAKEHOUSE_HUDI_JAR": str(jar)}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "adlake.bench.profile_batch",
            "--events",
            "200",
            "--batches",
            "2",
            "--lake",
            str(tmp_path / "work"),
            "--vars",
            SERVICES,
            "--json",
            str(profile),
            "--preload-chunk",
            "1",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "top 12 models:" in run.stdout and "per dbt step:" in run.stdout
    figures = json.loads(profile.read_text())
    nodes = {
        node["id"].split(".")[-1]: node for node in figures["nodes"] if node["type"] == "model"
    }
    models_on_disk = {path.stem for path in (ROOT / "models").rglob("*.sql")}
    assert set(nodes) == models_on_disk

    # The steps add up to no more than the whole; every part is accounted for.
    steps = figures["steps_s"]
    assert steps["models"] > 0 and steps["tests"] > 0
    assert (
        sum(seconds for step, seconds in steps.items() if step != "parse")
        <= figures["landing_to_ads_s"] + 1
    )

    dwd = nodes["dwd_billing_events"]
    # Its second delta commit, then the inline compaction of it, on its timeline...
    assert dwd["instants_s"].get("deltacommit", 0) > 0
    assert dwd["instants_s"].get("compaction", 0) > 0
    # ...and the Spark jobs Hudi ran for them, told apart by Hudi's descriptions.
    assert dwd["phases_s"].get("hudi write", 0) > 0
    assert dwd["phases_s"].get("compaction", 0) > 0
    assert dwd["statements_s"].get("write", 0) > 0
    # A model's phases fit in its run.
    for node in nodes.values():
        assert sum(node["phases_s"].values()) <= node["execute_s"] * 1.5 + 0.5, node
