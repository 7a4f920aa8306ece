"""merge_update_columns, merge_exclude_columns and incremental_predicates, read
back through Spark, on COW and MOR.

One project per table type: each model below is one config; the first run
stores three rows, the second changes every column but the key of rows 1 and
2, and adds row 4.
"""

import pytest

FIRST = "(1, 'a', 10, 'd1'), (2, 'b', 20, 'd2'), (3, 'c', 30, 'd3')"
SECOND = "(1, 'A', 11, 'e1'), (2, 'B', 21, 'e2'), (4, 'D', 40, 'e4')"

MODELS = {
    # Only `amount` changes on a matched row.
    "update_amount": "incremental_strategy='merge', merge_update_columns=['amount']",
    # Everything but `name` changes on a matched row (merge, and Hudi upsert).
    "keep_name_merge": "incremental_strategy='merge', merge_exclude_columns=['name']",
    "keep_name_upsert": "incremental_strategy='upsert', merge_exclude_columns=['NAME']",
    # Stored rows of days before d2 are out of the merge's reach.
    "recent_only": (
        "incremental_strategy='merge', "
        "incremental_predicates=[\"DBT_INTERNAL_DEST.day >= 'd2'\", 'DBT_INTERNAL_SOURCE.id < 100']"
    ),
}


def write_models(project, table_type):
    for name, settings in MODELS.items():
        project.model(
            name,
            f"""
            {{{{ config(materialized='incremental', unique_key='id', table_type='{table_type}', {settings}) }}}}
            select * from (values {{{{ var('rows') }}}}) as t(id, name, amount, day)
        """,
        )


def table(project, name):
    return [
        tuple(r)
        for r in project.rows(f"select id, name, amount, day from {{schema}}.{name} order by id")
    ]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_partial_updates_and_predicates(project, table_type):
    write_models(project, table_type)
    project.dbt("run", "--vars", f'{{rows: "{FIRST}"}}')
    project.dbt("run", "--vars", f'{{rows: "{SECOND}"}}')

    # A new row takes every column from the batch, the kept ones included.
    assert table(project, "update_amount") == [
        (1, "a", 11, "d1"),
        (2, "b", 21, "d2"),
        (3, "c", 30, "d3"),
        (4, "D", 40, "e4"),
    ]
    for name in ("keep_name_merge", "keep_name_upsert"):
        assert table(project, name) == [
            (1, "a", 11, "e1"),
            (2, "b", 21, "e2"),
            (3, "c", 30, "d3"),
            (4, "D", 40, "e4"),
        ], name
    # Row 1 is stored on d1, outside the predicates: it stays as it was, and the
    # batch's row 1 is not written (a second record with id 1 cannot exist).
    assert table(project, "recent_only") == [
        (1, "a", 10, "d1"),
        (2, "B", 21, "e2"),
        (3, "c", 30, "d3"),
        (4, "D", 40, "e4"),
    ]

    if table_type == "mor":
        # The second write went to log files: the reads above merged base and log.
        actions = [action for _, _, action in project.completed_instants("keep_name_merge")]
        assert actions == ["deltacommit", "deltacommit"]


def test_unknown_excluded_column_is_refused(project):
    project.model(
        "facts",
        """
        {{ config(materialized='incremental', unique_key='id', incremental_strategy='merge',
                  merge_exclude_columns=['nmae']) }}
        select 1 as id, 'a' as name
    """,
    )
    result = project.dbt("run", expect_ok=False)
    message = " ".join(r.message or "" for r in result.result.results)
    assert "'facts'" in message and "merge_exclude_columns" in message and "'nmae'" in message
