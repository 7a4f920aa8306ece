"""Rows matching the delete_condition remove their record, on upsert and merge, COW and MOR."""

import pytest

# CDC-like batches: batch 2 deletes a1 (newer than stored), tries to delete a2
# with an older version (ignored: the stored row is newer), updates a3, and
# carries a delete for a key that never existed (nothing to remove, not inserted).
MODEL = """
    {{{{ config(
        materialized='incremental',
        table_type='{table_type}',
        unique_key='account_id',
        precombine_key='changed_at',
        incremental_strategy='{strategy}',
        delete_condition="op = 'D'",
        partition_by={partition_by},
    ) }}}}
    select account_id, op, changed_at, industry, region from (values
        (1, 'a1', 'I', 10, 'travel', 'eu'),
        (1, 'a2', 'I', 50, 'gaming', 'eu'),
        (1, 'a3', 'I', 10, 'retail', 'us'),
        (2, 'a1', 'D', 20, 'travel', 'eu'),
        (2, 'a2', 'D', 40, 'gaming', 'eu'),
        (2, 'a3', 'U', 20, 'finance', 'us'),
        (2, 'a9', 'D', 20, 'none', 'us')
    ) as t(batch, account_id, op, changed_at, industry, region)
    where batch = {{{{ var('batch') }}}}
"""


@pytest.mark.parametrize(
    "table_type,strategy,partition_by",
    [
        ("mor", "upsert", "none"),
        ("cow", "merge", "none"),
        ("mor", "merge", "'region'"),
        ("cow", "upsert", "'region'"),
    ],
)
def test_delete_condition_removes_records(project, table_type, strategy, partition_by):
    project.model(
        "accounts",
        MODEL.format(table_type=table_type, strategy=strategy, partition_by=partition_by),
    )
    project.dbt("run", "--vars", "{batch: 1}")
    project.dbt("run", "--vars", "{batch: 2}")
    rows = project.rows("select account_id, op, industry from {schema}.accounts order by 1")
    assert [tuple(r) for r in rows] == [("a2", "I", "gaming"), ("a3", "U", "finance")]
    # Batch 1 is one commit; batch 2 writes its upserts, then its deletes.
    assert len(project.completed_instants("accounts")) == 3
