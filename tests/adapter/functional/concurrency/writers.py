"""Two writers of one table: the model dbt writes, the other Spark application
(external_writer.py) beside it, and what their commits on the table's
timeline show (test_optimistic_writers.py; on S3, test_s3_warehouse.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from dbt.adapters.lakehouse.formats.hudi import concurrency
from dbt.adapters.lakehouse.formats.hudi.settings.write_defaults import WRITE_DEFAULTS
from tests.dbt_harness import DbtProject, hudi_jar

WRITER = Path(__file__).with_name("external_writer.py")

# The tests count the commits on the table's active timeline, so it keeps
# every one: on a busy machine the external writer commits 30 times or more
# while dbt runs, and Hudi's default would archive the oldest past 30.
KEEP_ALL_COMMITS = {"hoodie.keep.min.commits": "200", "hoodie.keep.max.commits": "210"}
# The other writer leaves cleaning to dbt, as a job beside dbt should: Hudi
# cleans after each commit in every writer, and two cleans of a table at once
# fail one writer's statement (HUDI-8143; connections.explain_concurrent_failure).
LEAVES_CLEANING_TO_DBT = {"hoodie.clean.automatic": "false"}

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
    """external_writer.py in a process of its own, writing `table` (a path or
    URI) as `schema`.shared with the given hoodie.* settings; `env` may carry
    the Spark settings of its session (EXTERNAL_WRITER_SPARK_CONF, JSON: kept
    off its command line, since they may hold keys)."""

    def __init__(
        self,
        root: Path,
        table: str,
        schema: str,
        partition: str,
        settings: dict[str, str],
        env: dict[str, str] | None = None,
    ) -> None:
        self.stop_file = root / f"stop_{partition}"
        self.log = root / f"writer_{partition}.log"
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(WRITER),
                table,
                schema,
                partition,
                str(self.stop_file),
                str(hudi_jar()),
                json.dumps(settings),
            ],
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + 300
        while '"ready"' not in self.log.read_text():
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the external writer never got ready"
            time.sleep(0.5)

    @classmethod
    def beside(cls, project: DbtProject, partition: str) -> ExternalWriter:
        """A writer of the project's `shared` table in its local lake."""
        # Every writer of a table must write it the same way: the same
        # concurrency control and lock, and the table settings dbt records as
        # catalog properties, which a job writing by path does not read (with
        # its own default, a metadata table, it would keep building one that
        # dbt's writes drop).
        settings = {
            **WRITE_DEFAULTS,
            **concurrency.hudi_settings(concurrency.OPTIMISTIC, "filesystem"),
            **KEEP_ALL_COMMITS,
            **LEAVES_CLEANING_TO_DBT,
        }
        return cls(
            project.root, str(project.table_dir("shared")), project.schema, partition, settings
        )

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

    def rows(self) -> list[tuple]:
        """(source, rows, distinct ids, min run, max run) as the writer read
        the table once stopped."""
        [line] = [ln for ln in self.log.read_text().splitlines() if ln.startswith('{"rows"')]
        return [tuple(row) for row in json.loads(line)["rows"]]


def commits(table_dir: Path) -> list[tuple[str, str, str]]:
    """(requested, completed, partitions written) of each completed commit: the
    partition paths are read from the commit's metadata file."""
    timeline = table_dir / ".hoodie" / "timeline"
    found = []
    for path in timeline.iterdir():
        match = INSTANT.match(path.name)
        if match:
            data = path.read_bytes()
            parts = "+".join(p for p in ("dbt", "ext") if f"source={p}".encode() in data)
            found.append((match.group(1), match.group(2), parts))
    return sorted(found)


def overlapping(table_dir: Path) -> bool:
    """Whether a commit of each writer was in flight at the same time."""
    found = commits(table_dir)
    dbt = [(r, c) for r, c, p in found if p == "dbt"]
    ext = [(r, c) for r, c, p in found if p == "ext"]
    return any(r1 < c2 and r2 < c1 for r1, c1 in dbt for r2, c2 in ext)


def no_rollbacks(table_dir: Path) -> bool:
    return not list((table_dir / ".hoodie" / "timeline").glob("*.rollback*"))
