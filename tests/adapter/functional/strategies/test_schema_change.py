"""on_schema_change on Hudi tables: append_new_columns, sync_all_columns, fail."""

import pytest

from tests.dbt_harness import failures

MODEL = """
    {{{{ config(materialized='incremental', table_type='{table_type}', unique_key='id',
                on_schema_change='{mode}') }}}}
    {{% if var('run') == 1 %}}
    select * from (values (1, 'a', 10)) as t(id, name, old_cost)
    {{% else %}}
    select * from (values (2, 'b', 20)) as t(id, name, new_cost)
    {{% endif %}}
"""


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_append_new_columns_adds_the_column(project, table_type):
    project.model("t", MODEL.format(table_type=table_type, mode="append_new_columns"))
    project.dbt("run", "--vars", "{run: 1}")
    project.dbt("run", "--vars", "{run: 2}")
    rows = project.rows("select id, name, old_cost, new_cost from {schema}.t order by id")
    assert [tuple(r) for r in rows] == [(1, "a", 10, None), (2, "b", None, 20)]


def columns(project):
    names = [c.col_name for c in project.rows("describe {schema}.t")]
    return [n for n in names if n and not n.startswith(("_hoodie", "#"))]


def test_sync_all_columns_adds_new_columns(project):
    project.model(
        "t",
        """
        {{ config(materialized='incremental', unique_key='id', on_schema_change='sync_all_columns') }}
        select 1 as id, 'a' as name {% if var('run') == 2 %}, 5 as bonus {% endif %}
    """,
    )
    project.dbt("run", "--vars", "{run: 1}")
    project.dbt("run", "--vars", "{run: 2}")
    assert columns(project) == ["id", "name", "bonus"]
    assert project.scalar("select bonus from {schema}.t") == 5


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_sync_all_columns_drops_a_column_in_place(project, table_type):
    """Through Hudi's schema evolution: the table keeps its timeline and its
    rows, later upserts (and, on MOR, a compaction of the log files written
    before and after the drop) and an added column work as on any table."""
    project.model("t", MODEL.format(table_type=table_type, mode="sync_all_columns"))
    project.dbt("run", "--vars", "{run: 1}")
    first = project.completed_instants("t")[0]
    project.dbt("run", "--vars", "{run: 2}")
    assert columns(project) == ["id", "name", "new_cost"]
    assert project.completed_instants("t")[0] == first
    rows = project.rows("select id, name, new_cost from {schema}.t order by id")
    assert [tuple(r) for r in rows] == [(1, "a", None), (2, "b", 20)]

    # An upsert of the row written before the drop, then a new column.
    project.model(
        "t",
        MODEL.format(table_type=table_type, mode="sync_all_columns").replace(
            "select * from (values (2, 'b', 20)) as t(id, name, new_cost)",
            "select *, 'x' as note from (values (1, 'a2', 30)) as t(id, name, new_cost)",
        ),
    )
    project.dbt("run", "--vars", "{run: 2}")
    if table_type == "mor":
        project.dbt("run-operation", "lake_compact", "--args", "{model: t}")
    rows = project.rows("select id, name, new_cost, note from {schema}.t order by id")
    assert [tuple(r) for r in rows] == [(1, "a2", 30, "x"), (2, "b", 20, None)]


def test_fail_refuses_a_changed_schema(project):
    project.model("t", MODEL.format(table_type="mor", mode="fail"))
    project.dbt("run", "--vars", "{run: 1}")
    message = " ".join(failures(project.dbt("run", "--vars", "{run: 2}", expect_ok=False)))
    assert "schema" in message.lower()
    assert len(project.completed_instants("t")) == 1
