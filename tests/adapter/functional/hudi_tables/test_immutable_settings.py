"""A setting Hudi cannot change in place is refused before anything is written."""

import pytest

from tests.dbt_harness import failures

BASE = "materialized='incremental', table_type='mor', unique_key='id', precombine_key='v', partition_by='p'"


@pytest.mark.parametrize(
    "changed,key",
    [
        (
            "materialized='incremental', table_type='cow', unique_key='id', precombine_key='v', partition_by='p'",
            "table_type",
        ),
        (
            "materialized='incremental', table_type='mor', unique_key='k', precombine_key='v', partition_by='p'",
            "unique_key",
        ),
        (
            "materialized='incremental', table_type='mor', unique_key='id', precombine_key='k', partition_by='p'",
            "precombine_key",
        ),
        (
            "materialized='incremental', table_type='mor', unique_key='id', precombine_key='v'",
            "partition_by",
        ),
    ],
)
def test_changed_layout_is_refused_and_table_untouched(project, changed, key):
    sql = "select * from (values (1, 'a', 1, 'x')) as t(id, k, v, p)"
    project.model("t", f"{{{{ config({BASE}) }}}}\n{sql}")
    project.dbt("run")
    before = project.completed_instants("t")

    project.model("t", f"{{{{ config({changed}) }}}}\n{sql}")
    message = " ".join(failures(project.dbt("run", expect_ok=False)))
    assert key in message and "--full-refresh" in message and "'t'" in message
    assert project.completed_instants("t") == before

    project.dbt("run", "--full-refresh")
    assert project.scalar("select count(*) from {schema}.t") == 1
