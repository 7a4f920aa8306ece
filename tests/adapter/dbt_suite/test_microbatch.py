"""dbt's microbatch strategy on Hudi tables: event_time, batch_size, lookback,
backfill; each batch replaces exactly the rows of its event_time window."""

from pathlib import Path

import pytest
from dbt.tests.adapter.incremental.test_incremental_microbatch import BaseMicrobatch
from dbt.tests.util import patch_microbatch_end_time, run_dbt, run_dbt_and_capture

# dbt-spark's form: no unique_key (a keyless Hudi table, an insert per batch).
_keyless_model_sql = """
{{ config(materialized='incremental', incremental_strategy='microbatch',
          event_time='event_time', batch_size='day', begin=modules.datetime.datetime(2020, 1, 1, 0, 0, 0)) }}
select * from {{ ref('input_model') }}
"""


class TestMicrobatchMor(BaseMicrobatch):
    @pytest.fixture(scope="class")
    def microbatch_model_sql(self) -> str:
        return _keyless_model_sql

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"models": {"+table_type": "mor"}}


# Events over three days; the source is a seed so a test can change it between runs.
_events_v1 = """id,event_day,amount
1,2020-01-01,10
2,2020-01-01,20
3,2020-01-02,30
4,2020-01-02,40
5,2020-01-03,50
"""

# Day 1 loses id 2 and corrects id 1 downwards; day 2 gains id 6 and corrects
# id 3; day 3 loses id 5.
_events_v2 = """id,event_day,amount
1,2020-01-01,9
3,2020-01-02,31
4,2020-01-02,40
6,2020-01-02,60
"""

_windowed_model_sql = """
{{ config(materialized='incremental', incremental_strategy='microbatch', unique_key='id',
          precombine_key='amount', partition_by='event_day',
          event_time='event_time', batch_size='day', lookback=0,
          begin=modules.datetime.datetime(2020, 1, 1, 0, 0, 0)) }}
select id, amount, cast(event_day as timestamp) as event_time, cast(event_day as string) as event_day
from {{ ref('events') }}
"""

_events_input_sql = """
{{ config(materialized='view', event_time='event_time') }}
select id, amount, event_day, cast(event_day as timestamp) as event_time from {{ ref('events_seed') }}
"""


class TestMicrobatchReplacesItsWindow:
    """On a keyed, partitioned table with a precombine key, a backfill of one
    day replaces exactly that day: rows gone from its source go, corrections
    land (even with a smaller precombine value), other days stay as they were
    although their source changed too."""

    @pytest.fixture(scope="class")
    def seeds(self):
        return {"events_seed.csv": _events_v1}

    @pytest.fixture(scope="class")
    def models(self):
        return {"events.sql": _events_input_sql, "windowed.sql": _windowed_model_sql}

    def rows(self, project):
        return [
            tuple(r)
            for r in project.run_sql(
                f"select event_day, id, amount from {project.test_schema}.windowed order by id",
                fetch="all",
            )
        ]

    def test_backfill_replaces_exactly_the_window(self, project):
        run_dbt(["seed"])
        with patch_microbatch_end_time("2020-01-03 12:00:00"):
            run_dbt(["run"])
        assert self.rows(project) == [
            ("2020-01-01", 1, 10),
            ("2020-01-01", 2, 20),
            ("2020-01-02", 3, 30),
            ("2020-01-02", 4, 40),
            ("2020-01-03", 5, 50),
        ]

        Path(project.project_root, "seeds", "events_seed.csv").write_text(_events_v2)
        run_dbt(["seed", "--full-refresh"])
        # The amount is the precombine key: an upsert alone would keep id 1's
        # stored 10 over the corrected 9; the window's delete lets 9 land.
        run_dbt(
            [
                "run",
                "--select",
                "windowed",
                "--event-time-start",
                "2020-01-01",
                "--event-time-end",
                "2020-01-02",
            ]
        )
        assert self.rows(project) == [
            ("2020-01-01", 1, 9),
            ("2020-01-02", 3, 30),
            ("2020-01-02", 4, 40),
            ("2020-01-03", 5, 50),
        ]

        run_dbt(
            [
                "run",
                "--select",
                "windowed",
                "--event-time-start",
                "2020-01-02",
                "--event-time-end",
                "2020-01-04",
            ]
        )
        # Day 3 has no rows left in its source: its batch empties the window.
        assert self.rows(project) == [
            ("2020-01-01", 1, 9),
            ("2020-01-02", 3, 31),
            ("2020-01-02", 4, 40),
            ("2020-01-02", 6, 60),
        ]


class TestMicrobatchMorPrecombineRefused:
    """Seen in Hudi 1.2: on merge-on-read, a deleted record comes back when a
    later write of its key has a smaller precombine value, so a batch could not
    replace its window exactly: the combination is refused before any write."""

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "events.sql": "{{ config(materialized='view', event_time='event_time') }}\n"
            "select 1 as id, 5 as amount, timestamp '2020-01-01 00:00:00' as event_time",
            "windowed.sql": "{{ config(materialized='incremental', incremental_strategy='microbatch', "
            "unique_key='id', precombine_key='amount', table_type='mor', event_time='event_time', "
            "batch_size='day', begin=modules.datetime.datetime(2020, 1, 1)) }}\n"
            "select * from {{ ref('events') }}",
        }

    def test_refused(self, project):
        with patch_microbatch_end_time("2020-01-01 12:00:00"):
            results, output = run_dbt_and_capture(["run"], expect_pass=False)
        [failed] = [r for r in results if r.node.name == "windowed"]
        assert failed.status == "error"
        # A microbatch model reports its batches' errors in the log, not in its result.
        assert (
            "config 'precombine_key' = 'amount' is not valid" in output
            and "table_type 'cow'" in output
        )
        assert (
            project.run_sql(f"show tables in {project.test_schema} like 'windowed'", fetch="all")
            == []
        )
