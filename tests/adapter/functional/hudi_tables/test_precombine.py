"""The precombine key decides: an older version arriving later never overwrites
a newer one; between rows of one version, their values do, not their order."""

import pytest

# Each run lands the batch chosen by the `batch` var: batch 2 brings a newer
# version of e1 and, late, an older version of e2 (whose version 3 is stored).
# e4 comes twice in batch 1 at one version: the row with the larger values
# stays (it comes first: Hudi, left to itself, keeps the one it processes
# last). e5 comes again in batch 2 at its stored version: the batch's row
# replaces it, as a MERGE updates when the incoming version is not older.
MODEL = """
    {{{{ config(
        materialized='incremental',
        table_type='{table_type}',
        unique_key='event_id',
        precombine_key='version',
        incremental_strategy='{strategy}',
    ) }}}}
    select event_id, version, cost_micros from (values
        (1, 'e1', 1, 100),
        (1, 'e2', 3, 300),
        (1, 'e2', 2, 250),
        (1, 'e4', 1, 45),
        (1, 'e4', 1, 40),
        (1, 'e5', 1, 60),
        (2, 'e1', 2, 150),
        (2, 'e5', 1, 70),
        (2, 'e2', 1, 999),
        (2, 'e3', 1, 50)
    ) as t(batch, event_id, version, cost_micros)
    where batch = {{{{ var('batch') }}}}
"""


@pytest.mark.parametrize(
    "table_type,strategy",
    [("mor", "upsert"), ("mor", "merge"), ("cow", "upsert"), ("cow", "merge")],
)
def test_late_older_version_does_not_overwrite(project, table_type, strategy):
    project.model("events", MODEL.format(table_type=table_type, strategy=strategy))
    project.dbt("run", "--vars", "{batch: 1}")
    # Within one batch, duplicates of a key collapse to the highest version.
    assert project.rows(
        "select event_id, version, cost_micros from {schema}.events order by 1"
    ) == [
        ("e1", 1, 100),
        ("e2", 3, 300),
        ("e4", 1, 45),
        ("e5", 1, 60),
    ]

    project.dbt("run", "--vars", "{batch: 2}")
    rows = project.rows("select event_id, version, cost_micros from {schema}.events order by 1")
    assert [tuple(r) for r in rows] == [
        ("e1", 2, 150),
        ("e2", 3, 300),
        ("e3", 1, 50),
        ("e4", 1, 45),
        ("e5", 1, 70),
    ]
    # Two writes, two completed commits: the second was incremental, not a rebuild.
    expected = "deltacommit" if table_type == "mor" else "commit"
    assert [a for _, _, a in project.completed_instants("events")] == [expected, expected]
