"""append, insert_overwrite and merge behave as their names say, on COW and MOR."""

import json

import pytest


def commit_operation(project, table):
    """The write operation Hudi recorded in the latest completed commit."""
    requested, completed, action = project.completed_instants(table)[-1]
    path = project.table_dir(table) / ".hoodie" / "timeline" / f"{requested}_{completed}.{action}"
    text = path.read_text()
    return json.loads(text)["operationType"] if text.lstrip().startswith("{") else text


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_append_inserts_without_dedup(project, table_type):
    project.model(
        "logs",
        f"""
        {{{{ config(materialized='incremental', incremental_strategy='append', table_type='{table_type}') }}}}
        select * from (values ('a', 1), ('b', 2)) as t(k, n)
    """,
    )
    project.dbt("run")
    project.dbt("run")
    # The same rows twice: an append log keeps both copies.
    assert project.scalar("select count(*) from {schema}.logs") == 4
    assert project.scalar("select sum(n) from {schema}.logs") == 6


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_insert_overwrite_replaces_only_the_partitions_written(project, table_type):
    project.model(
        "daily",
        f"""
        {{{{ config(materialized='incremental', incremental_strategy='insert_overwrite',
                    table_type='{table_type}', partition_by='day') }}}}
        {{% if var('run') == 1 %}}
        select * from (values ('x', 1, 'd1'), ('y', 2, 'd1'), ('z', 3, 'd2')) as t(k, n, day)
        {{% else %}}
        select * from (values ('w', 10, 'd1')) as t(k, n, day)
        {{% endif %}}
    """,
    )
    project.dbt("run", "--vars", "{run: 1}")
    project.dbt("run", "--vars", "{run: 2}")
    rows = project.rows("select day, k, n from {schema}.daily order by day, k")
    assert [tuple(r) for r in rows] == [("d1", "w", 10), ("d2", "z", 3)]


def test_insert_overwrite_without_partitions_replaces_the_table(project):
    project.model(
        "snap",
        """
        {{ config(materialized='incremental', incremental_strategy='insert_overwrite') }}
        select * from (values ({{ var('run') }}, 'a'), ({{ var('run') }}, 'b')) as t(run, k)
    """,
    )
    project.dbt("run", "--vars", "{run: 1}")
    project.dbt("run", "--vars", "{run: 2}")
    assert project.rows("select run, count(*) from {schema}.snap group by run") == [(2, 2)]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_merge_runs_again_and_again(project, table_type):
    """dbt-spark's `update set *` fails on Hudi from the second merge on (_hoodie_* columns)."""
    project.model(
        "dim",
        f"""
        {{{{ config(materialized='incremental', incremental_strategy='merge', table_type='{table_type}',
                    unique_key='id', partition_by='region') }}}}
        select * from (values (1, 'eu', {{{{ var('run') }}}}), ({{{{ var('run') }}}} + 1, 'us', 0)) as t(id, region, n)
    """,
    )
    for run in (1, 2, 3, 4):
        project.dbt("run", "--vars", f"{{run: {run}}}")
    rows = project.rows("select id, region, n from {schema}.dim order by id")
    assert [tuple(r) for r in rows] == [
        (1, "eu", 4),
        (2, "us", 0),
        (3, "us", 0),
        (4, "us", 0),
        (5, "us", 0),
    ]


def test_empty_batch_writes_no_commit(project):
    project.model(
        "facts",
        """
        {{ config(materialized='incremental', unique_key='id') }}
        select * from (values (1, 'a')) as t(id, v)
        {% if is_incremental() %} where id > (select max(id) from {{ this }}) {% endif %}
    """,
    )
    project.dbt("run")
    project.dbt("run")
    assert len(project.completed_instants("facts")) == 1


def test_table_model_ignores_an_incremental_strategy_set_for_the_whole_project(project):
    """`+incremental_strategy: merge` project-wide does not apply to a keyless
    table model: a keyless merge would append, a table rebuild replaces."""
    project.write(
        "dbt_project.yml",
        project.root.joinpath("dbt_project.yml").read_text()
        + "models:\n  lake_test:\n    +incremental_strategy: merge\n",
    )
    project.model(
        "totals",
        """
        {{ config(materialized='table') }}
        select * from (values ('a', 1), ('a', 2), ('b', 3)) as t(k, n)
    """,
    )
    project.dbt("run")
    project.dbt("run")
    # Rebuilt, not merged or appended: the rows once, duplicates of k kept.
    assert project.scalar("select count(*) from {schema}.totals") == 3
    assert project.scalar("select sum(n) from {schema}.totals") == 6
