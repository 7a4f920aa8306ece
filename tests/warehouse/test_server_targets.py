"""The warehouse on `connect` and on `thrift`, on a shared catalog, each
server and the catalog started and stopped here. Two small batches on the
Connect server, the Thrift server (the BI readers' way in) reading the same
ADS rows after each one (adlake.runner.compare_targets, whose full
comparison of every target, the cluster's included, is `python -m
adlake.runner.compare_targets`), then every data test once, on whole tables;
then the same two batches built on the Thrift server by the README's runner
(what `make run` runs, on the repository's `thrift` profile), its data tests
after each batch, and its ADS tables equal to the Connect session's, row by
row. One pass of every test on Connect shows that they pass there."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from adlake import ROOT
from adlake.runner import compare_targets
from adlake.runner.readers import query_function
from adlake.servers import catalog
from tests.adapter.functional.targets.test_shared_catalog import processes_mentioning

BATCHES, EVENTS = 2, 3000


def run_the_readme_runner(work: Path, port: int) -> subprocess.CompletedProcess:
    """`python -m adlake.runner.warehouse` (what `make run` runs) on the
    repository's `thrift` profile against this server, with JAVA_HOME
    pointing nowhere: any JVM it tried to start beside the server would
    fail the run. The generator's data is that of compare_targets' run (the
    same seed, events and batches)."""
    env = {
        **os.environ,
        "ADLAKE_TARGET": "thrift",
        "ADLAKE_THRIFT_PORT": str(port),
        "ADLAKE_LAKE_DIR": str(work),
        "DBT_PROFILES_DIR": str(ROOT / "profiles"),
        "JAVA_HOME": str(work / "no-java"),
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "adlake.runner.warehouse",
            "--batches",
            str(BATCHES),
            "--events",
            str(EVENTS),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_warehouse_on_connect_and_thrift_share_a_catalog(tmp_path, monkeypatch, capsys):
    # What the run sets for dbt, given back after the test.
    monkeypatch.setenv("ADLAKE_LANDING_DIR", str(tmp_path / "unset"))
    monkeypatch.delenv(catalog.PASSWORD_ENV, raising=False)
    # Not under pytest's tmp_path (0700): PostgreSQL's account must reach it.
    catalog_dir = Path(tempfile.mkdtemp(prefix="adlake-catalog-"))
    catalog_dir.chmod(0o755)
    runner: list[subprocess.CompletedProcess] = []
    thrift_ads: list[dict] = []

    def then_the_runner_on_thrift(target: str, ports: dict[str, int]) -> None:
        # The Thrift server compare_targets started for the BI readers' checks.
        runner.append(run_the_readme_runner(tmp_path / "runner", ports["thrift"]))
        if runner[0].returncode == 0:
            query = query_function("thrift", ports["thrift"])
            thrift_ads.append(compare_targets.ads_rows(query, "adlake"))

    try:
        results = compare_targets.run(
            ["connect"],
            tmp_path,
            batches=BATCHES,
            events=EVENTS,
            catalog_dir=catalog_dir,
            after_target=then_the_runner_on_thrift,
            # The Connect batches build their models; `dbt test` after the
            # last reads whole tables. The runner on Thrift checks each of
            # its batches: every data test on each connection.
            batches_checked_on=[],
        )
    finally:
        # Nothing left running: no server (its command line names its
        # settings file under the work folder), no PostgreSQL.
        leftover = processes_mentioning(str(tmp_path)) + processes_mentioning(str(catalog_dir))
        shutil.rmtree(catalog_dir, ignore_errors=True)
    assert leftover == []
    out = capsys.readouterr().out
    # Each batch's totals equalled the truth (the run raises otherwise), and
    # the Thrift server read the ADS rows the Connect session wrote.
    assert "connect: batch 2: the Thrift server reads the same ADS rows" in out
    # The batches built their models, and ran no data test.
    built = dict(re.findall(r"^(\w+): batch 2/2 built \[([^]]*)\]", out, re.M))
    assert "success" in built["connect"] and "pass" not in built["connect"], built
    figures = results["connect"]
    tests = {status: int(n) for n, status in re.findall(r"(\d+) (\w+)", figures["tests"])}
    assert set(tests) <= {"pass", "warn"} and tests["pass"] > 20, figures["tests"]
    assert sum(len(rows) for rows in figures["ads"].values()) > 0

    # The README's runner built both batches on the Thrift server, each
    # with its data tests, and summarized them through the server: totals
    # equal to the generator's truth.
    [run] = runner
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"{BATCHES} batches on target thrift" in run.stdout
    assert "(ok)" in run.stdout and "MISMATCH" not in run.stdout, run.stdout[-3000:]
    checked = re.findall(
        r"^batch \d+/\d+: .*checked \(whole tables\).*\[([^]]*)\]$", run.stdout, re.M
    )
    assert len(checked) == BATCHES, run.stdout[-3000:]
    for tally in checked:
        assert "pass" in tally and "fail" not in tally and "error" not in tally, tally
    # The two servers built the same ADS tables, row by row, in schemas of
    # their own in the one catalog.
    [ads] = thrift_ads
    assert compare_targets.compare(figures["ads"], ads) == []
