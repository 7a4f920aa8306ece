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

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from dbt.cli.main import dbtRunner

from dbt.adapters.lakehouse import concurrency
from dbt.adapters.lakehouse.relation_configs.write_defaults import WRITE_DEFAULTS
from tests.dbt_harness import DbtProject, failures, hudi_jar

WRITER = Path(__file__).with_name("external_writer.py")

# The tests count the commits on the table's active timeline, so it keeps
# every one: on a busy machine the external writer commits 30 times or more
# while dbt runs, and Hudi's default would archive the oldest past 30.
KEEP_ALL_COMMITS = {"hoodie.keep.min.commits": "200", "hoodie.keep.max.commits": "210"}

# dbt writes ids 1..200 of partition `dbt`, with run = the run's number.
_MODEL_TEMPLATE = """
    {{ config(materialized='incremental', unique_key='id', partition_by='source', table_type='cow',
              hudi_options=%s) }}
    select id, {{ var('run') }} as run, 'dbt' as source from range(1, 201)
"""
# %-format: Jinja's braces would need doubling in an f-string or str.format.
MODEL = _MODEL_TEMPLATE % KEEP_ALL_COMMITS  # noqa: UP031
INSTANT = re.compile(r"^(\d+)_(\d+)\.commit$")


class ExternalWriter:
    def __init__(self, project: DbtProject, partition: str) -> None:
        self.stop_file = project.root / f"stop_{partition}"
        self.log = project.root / f"writer_{partition}.log"
        # Every writer of a table must write it the same way: the same
        # concurrency control and lock, and the table settings dbt records as
        # catalog properties, which a job writing by path does not read (with
        # its own default, a metadata table, it would keep building one that
        # dbt's writes drop).
        settings = {
            **WRITE_DEFAULTS,
            **concurrency.hudi_settings(concurrency.OPTIMISTIC, "filesystem"),
            **KEEP_ALL_COMMITS,
        }
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(WRITER),
                str(project.table_dir("shared")),
                project.schema,
                partition,
                str(self.stop_file),
                str(hudi_jar()),
                json.dumps(settings),
            ],
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 300
        while '"ready"' not in self.log.read_text():
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the external writer never got ready"
            time.sleep(0.5)

    def attempts(self) -> list[dict]:
        return [
            json.loads(line)
            for line in self.log.read_text().splitlines()
            if line.startswith('{"attempt"')
        ]

    def wait_for_commits(self, count: int) -> None:
        deadline = time.monotonic() + 300
        while sum(a["ok"] for a in self.attempts()) < count:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the external writer committed nothing"
            time.sleep(0.5)

    def stop(self) -> list[dict]:
        self.stop_file.touch()
        try:
            self.process.wait(300)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        assert self.process.returncode == 0, self.log.read_text()[-3000:]
        return self.attempts()


@pytest.fixture
def shared_table(project: DbtProject) -> DbtProject:
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    profile["lake_test"]["outputs"]["local"]["concurrency"] = "optimistic"
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile))
    project.model("shared", MODEL)
    project.dbt("run", "--vars", "{run: 1}")
    return project


def commits(project: DbtProject) -> list[tuple[str, str, str]]:
    """(requested, completed, partitions written) of each completed commit: the
    partition paths are read from the commit's metadata file."""
    timeline = project.table_dir("shared") / ".hoodie" / "timeline"
    found = []
    for path in timeline.iterdir():
        match = INSTANT.match(path.name)
        if match:
            data = path.read_bytes()
            parts = "+".join(p for p in ("dbt", "ext") if f"source={p}".encode() in data)
            found.append((match.group(1), match.group(2), parts))
    return sorted(found)


def overlapping(project: DbtProject) -> bool:
    """Whether a commit of each writer was in flight at the same time."""
    found = commits(project)
    dbt = [(r, c) for r, c, p in found if p == "dbt"]
    ext = [(r, c) for r, c, p in found if p == "ext"]
    return any(r1 < c2 and r2 < c1 for r1, c1 in dbt for r2, c2 in ext)


def no_rollbacks(project: DbtProject) -> bool:
    return not list((project.table_dir("shared") / ".hoodie" / "timeline").glob("*.rollback*"))


def test_writers_of_different_partitions_both_commit(shared_table):
    project = shared_table
    writer = ExternalWriter(project, "ext")
    runs = 1
    try:
        writer.wait_for_commits(1)
        # Until a dbt commit and an external one have been in flight together.
        while runs < 2 or (not overlapping(project) and runs < 8):
            runs += 1
            project.dbt("run", "--vars", f"{{run: {runs}}}")
    finally:
        attempts = writer.stop()
    assert overlapping(project), commits(project)
    assert all(a["ok"] for a in attempts), [a for a in attempts if not a["ok"]]
    assert no_rollbacks(project)
    written = len(attempts)
    assert [p for _, _, p in commits(project)].count("ext") == written
    assert [p for _, _, p in commits(project)].count("dbt") == runs
    rows = project.rows(
        "select source, count(*), count(distinct id), min(run), max(run) "
        "from {schema}.shared group by source order by source"
    )
    assert [tuple(r) for r in rows] == [
        ("dbt", 200, 200, runs, runs),
        ("ext", 50, 50, 1000 + written, 1000 + written),
    ]


def test_writers_of_the_same_rows_conflict_cleanly(shared_table):
    project = shared_table
    writer = ExternalWriter(project, "dbt")
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
