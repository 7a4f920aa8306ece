"""The warehouse on `connect` and on `thrift`, on a shared catalog: two small
batches and `dbt test` on each, every server and the catalog started and
stopped here (adlake.runner.targets, whose full comparison of every target,
the cluster's included, is `python -m adlake.runner.targets`)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from adlake.runner import targets
from adlake.servers import catalog
from tests.adapter.functional.targets.test_shared_catalog import processes_mentioning


def test_warehouse_on_connect_and_thrift_share_a_catalog(tmp_path, monkeypatch, capsys):
    # What the run sets for dbt, given back after the test.
    monkeypatch.setenv("ADLAKE_LANDING_DIR", str(tmp_path / "unset"))
    monkeypatch.delenv(catalog.PASSWORD_ENV, raising=False)
    # Not under pytest's tmp_path (0700): PostgreSQL's account must reach it.
    catalog_dir = Path(tempfile.mkdtemp(prefix="adlake-catalog-"))
    catalog_dir.chmod(0o755)
    try:
        results = targets.run(
            ["connect", "thrift"], tmp_path, batches=2, events=3000, catalog_dir=catalog_dir
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
    for target in ("connect", "thrift"):
        figures = results[target]
        assert figures["differences"] == []
        assert "pass" in figures["tests"] and "fail" not in figures["tests"], figures["tests"]
        assert "error" not in figures["tests"], figures["tests"]
        assert sum(len(rows) for rows in figures["ads"].values()) > 0
    # Both targets wrote into the one warehouse folder of the catalog, in
    # schemas of their own.
    assert results["connect"]["ads"] == results["thrift"]["ads"]
