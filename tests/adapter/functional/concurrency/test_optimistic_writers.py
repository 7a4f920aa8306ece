"""Two writers of one Hudi table at once, on one machine, under the profile's
`concurrency: optimistic` (Hudi's optimistic concurrency control with the
filesystem lock provider, whose lock file lives in the table's own folder).

The writers are dbt runs of a model, in this process, and another Spark
application writing the same table by its path (external_writer.py), as an
ingestion job beside dbt would. In single-writer mode, a write that starts
rolls back whatever it finds in flight: the other writer's commit.

- Writers of different partitions both commit, whenever they overlap.
- Writers of the same rows: a commit that finds that another writer committed
  to its files since it started fails with a write conflict and keeps nothing;
  the table holds every row exactly once, each from one whole commit.
"""

from __future__ import annotations

import pytest
import yaml
from dbt.cli.main import dbtRunner

from tests.adapter.functional.concurrency.writers import (
    MODEL,
    ExternalWriter,
    commits,
    no_rollbacks,
    overlapping,
)
from tests.dbt_harness import DbtProject, failures


@pytest.fixture
def shared_table(project: DbtProject) -> DbtProject:
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    profile["lake_test"]["outputs"]["local"]["concurrency"] = "optimistic"
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile))
    project.model("shared", MODEL)
    project.dbt("run", "--vars", "{run: 1}")
    return project


def test_writers_of_different_partitions_both_commit(shared_table):
    project = shared_table
    table = project.table_dir("shared")
    writer = ExternalWriter.beside(project, "ext")
    runs = 1
    try:
        writer.wait_for_commits(1)
        # Until a dbt commit and an external one have been in flight together.
        while runs < 2 or (not overlapping(table) and runs < 8):
            runs += 1
            project.dbt("run", "--vars", f"{{run: {runs}}}")
    finally:
        attempts = writer.stop()
    assert overlapping(table), commits(table)
    assert all(a["ok"] for a in attempts), [a for a in attempts if not a["ok"]]
    assert no_rollbacks(table)
    written = len(attempts)
    assert [p for _, _, p in commits(table)].count("ext") == written
    assert [p for _, _, p in commits(table)].count("dbt") == runs
    rows = project.rows(
        "select source, count(*), count(distinct id), min(run), max(run) "
        "from {schema}.shared group by source order by source"
    )
    assert [tuple(r) for r in rows] == [
        ("dbt", 200, 200, runs, runs),
        ("ext", 50, 50, 1000 + written, 1000 + written),
    ]
    assert writer.rows() == [tuple(r) for r in rows]


def test_writers_of_the_same_rows_conflict_cleanly(shared_table):
    project = shared_table
    writer = ExternalWriter.beside(project, "dbt")
    results = []
    try:
        writer.wait_for_commits(1)
        # Until one writer's commit has failed on the other's.
        for run in range(2, 10):
            results.append(
                dbtRunner().invoke(
                    [
                        "run",
                        "--vars",
                        f"{{run: {run}}}",
                        "--project-dir",
                        str(project.root),
                        "--profiles-dir",
                        str(project.root),
                    ]
                )
            )
            if any(not a["ok"] for a in writer.attempts()) or not results[-1].success:
                break
    finally:
        attempts = writer.stop()
    lost_by_dbt = [" ".join(failures(r)) for r in results if not r.success]
    lost_by_writer = [a["error"] for a in attempts if not a["ok"]]
    assert lost_by_dbt or lost_by_writer, "no conflict in 8 overlapping runs"
    for message in lost_by_dbt + lost_by_writer:
        assert "HoodieWriteConflictException" in message, message[:2000]
    for message in lost_by_dbt:
        assert "Another writer committed to the same files of this table" in message, message[:2000]
    # Every row once, each id's row from one whole commit: ids 1..50 (written by
    # both) all carry the last commit that wrote them, ids 51..200 dbt's last.
    rows = project.rows("select count(*), count(distinct id) from {schema}.shared")
    assert tuple(rows[0]) == (200, 200)
    shared = project.rows(
        "select count(distinct _hoodie_commit_time), count(distinct run) "
        "from {schema}.shared where id <= 50"
    )
    assert tuple(shared[0]) == (1, 1)
