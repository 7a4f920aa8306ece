"""Source freshness. Without a loaded_at_field, a Hudi source's freshness is when
its latest completed instant completed, read from the table's timeline; with a
loaded_at_field, dbt reads that column as on any adapter (dbt-spark's case)."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from dbt.tests.util import run_dbt

from tests.dbt_harness import completed_instants, spark

_sources_yml = """
version: 2
sources:
  - name: lake
    schema: "{{ target.schema }}"
    freshness:
      warn_after: {count: 10, period: hour}
      error_after: {count: 1, period: day}
    tables:
      - name: loaded
      - name: never_loaded
      - name: plain
      - name: stamped
        loaded_at_field: loaded_at
"""

_loaded_sql = """
{{ config(materialized='incremental', unique_key='id', table_type='mor') }}
select {{ var('id', 1) }} as id, 'x' as v
"""

# A plain parquet table, and one whose rows say they were loaded long ago.
_plain_csv = """id,loaded_at
1,2023-01-01 00:00:00
"""


class TestSourceFreshnessFromTimeline:
    @pytest.fixture(scope="class")
    def models(self):
        return {"sources.yml": _sources_yml, "loaded.sql": _loaded_sql}

    @pytest.fixture(scope="class")
    def seeds(self):
        return {"plain.csv": _plain_csv, "stamped.csv": _plain_csv}

    def freshness(self, source, expect_pass=True):
        results = run_dbt(
            ["source", "freshness", "--select", f"source:lake.{source}"], expect_pass=expect_pass
        )
        assert len(results) == 1
        return results[0]

    def latest_completion(self, lake_dir, schema):
        """The completion time of the table's latest completed instant, from the
        file names in .hoodie/timeline, in the writing JVM's zone (Hudi's LOCAL)."""
        completed = max(
            c for _, c, _ in completed_instants(lake_dir / "warehouse" / f"{schema}.db" / "loaded")
        )
        zone = spark()._jvm.java.time.ZoneId.systemDefault().getId()
        return datetime.strptime(completed, "%Y%m%d%H%M%S%f").replace(tzinfo=ZoneInfo(zone))

    def test_freshness(self, project, lake_dir):
        run_dbt(["seed"])
        run_dbt(["run"])
        first = self.freshness("loaded")
        assert first.status == "pass"
        assert first.max_loaded_at == self.latest_completion(lake_dir, project.test_schema)

        # A second write moves it to the new instant.
        run_dbt(["run", "--vars", "{id: 2}"])
        second = self.freshness("loaded")
        assert second.max_loaded_at == self.latest_completion(lake_dir, project.test_schema)
        assert second.max_loaded_at > first.max_loaded_at

        # A Hudi table nothing was ever committed to was never loaded.
        project.run_sql(f"create table {project.test_schema}.never_loaded (id int) using hudi")
        never = self.freshness("never_loaded", expect_pass=False)
        assert never.status == "error"
        assert never.max_loaded_at.year == 1

        # Not a Hudi table, no loaded_at_field: refused, saying what to do.
        plain = self.freshness("plain", expect_pass=False)
        assert plain.status == "runtime error"
        assert "is not a Hudi table" in plain.message and "loaded_at_field" in plain.message

        # With a loaded_at_field, the column decides: these rows are stale.
        assert self.freshness("stamped", expect_pass=False).status == "error"
