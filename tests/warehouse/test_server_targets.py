"""The warehouse on `connect` and on `thrift`, on a shared catalog: two small
batches and `dbt test` on each, every server and the catalog started and
stopped here (adlake.runner.compare_targets, whose full comparison of every target,
the cluster's included, is `python -m adlake.runner.compare_targets`)."""

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
from adlake.servers import catalog
from tests.adapter.functional.targets.test_shared_catalog import processes_mentioning


def run_the_readme_runner(work: Path, port: int) -> subprocess.CompletedProcess:
    """`python -m adlake.runner.warehouse` (what `make run` runs) on the
    repository's `connect` profile against this server, with JAVA_HOME
    pointing nowhere: any JVM it tried to start beside the server would
    fail the run."""
    env = {
        **os.environ,
        "ADLAKE_TARGET": "connect",
        "ADLAKE_CONNECT_PORT": str(port),
        "ADLAKE_LAKE_DIR": str(work),
        "DBT_PROFILES_DIR": str(ROOT / "profiles"),
        "JAVA_HOME": str(work / "no-java"),
    }
    return subprocess.run(
        [sys.executable, "-m", "adlake.runner.warehouse", "--batches", "1", "--events", "2000"],
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

    def also_the_runner(target: str, port: int | None) -> None:
        if target == "connect" and port is not None:
            runner.append(run_the_readme_runner(tmp_path / "runner", port))

    try:
        results = compare_targets.run(
            ["connect", "thrift"],
            tmp_path,
            batches=2,
            events=3000,
            catalog_dir=catalog_dir,
            after_target=also_the_runner,
            # The checks of each batch (of what it wrote) on one server; on
            # the other, whole tables once: every data test on each
            # connection, each run once.
            batches_checked_on=["connect"],
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
    # Connect's batch builds ran their data tests; Thrift's left them to its
    # `dbt test`, the only one.
    built = dict(re.findall(r"^(\w+): batch 2/2 built \[([^]]*)\]", out, re.M))
    assert "pass" in built["connect"] and "pass" not in built["thrift"], built
    assert re.findall(r"^(\w+): dbt test ", out, re.M) == ["thrift"], out[-3000:]
    for target in ("connect", "thrift"):
        figures = results[target]
        assert figures["differences"] == []
        assert "pass" in figures["tests"] and "fail" not in figures["tests"], figures["tests"]
        assert "error" not in figures["tests"], figures["tests"]
        assert sum(len(rows) for rows in figures["ads"].values()) > 0
    # Both targets wrote into the one warehouse folder of the catalog, in
    # schemas of their own.
    assert results["connect"]["ads"] == results["thrift"]["ads"]
    # The README's runner built a batch on the Connect server and summarized
    # it through the server: totals equal to the generator's truth.
    [run] = runner
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "1 batches on target connect" in run.stdout
    assert "(ok)" in run.stdout and "MISMATCH" not in run.stdout, run.stdout[-3000:]
