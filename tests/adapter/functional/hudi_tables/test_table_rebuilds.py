"""A Hudi `table` model's rebuild replaces the table's rows in one commit
(`insert overwrite`: a replacecommit on the same timeline), so its readers
never find it missing or empty; the whole table is replaced, partitions the
new result lacks included, and a key keeps one row, the latest version, as on
the first load. A changed column, a full refresh or an empty result drop and
create the table instead (a new timeline)."""

# Partitioned by day, keyed by id, the largest version wins. `day_two` moves
# id 2 to another day; `days` chooses which days the result has at all.
DAILY = """
    {{ config(materialized='table', unique_key='id', precombine_key='version',
              partition_by='day') }}
    select id, version, day, amount{extra} from (values
        (1, 1, date'2026-01-01', 10),
        (2, 1, date'{{ var('day_two', '2026-01-01') }}', 20),
        (2, 2, date'{{ var('day_two', '2026-01-01') }}', {{ var('amount_two', 25) }}),
        (3, 1, date'2026-01-02', 30)
    ) as t(id, version, day, amount)
    where day in ({{ var('days', "date'2026-01-01', date'2026-01-02'") }})
"""


def actions(project) -> list[str]:
    return [action for _, _, action in project.completed_instants("daily")]


def rows(project) -> list[tuple]:
    return [
        tuple(r)
        for r in project.rows(
            "select id, version, string(day), amount from {schema}.daily order by id"
        )
    ]


def test_a_rebuild_replaces_the_rows_in_one_commit_on_the_same_timeline(project):
    project.model("daily", DAILY.replace("{extra}", ""))
    project.dbt("run")
    first = project.completed_instants("daily")
    assert rows(project) == [
        (1, 1, "2026-01-01", 10),
        (2, 2, "2026-01-01", 25),
        (3, 1, "2026-01-02", 30),
    ]

    # New values, id 2 on another day, and no row left on 2026-01-02's
    # partition but id 2's: the whole table is replaced, not only the
    # partitions the new result writes.
    project.dbt(
        "run",
        "--vars",
        "{day_two: '2026-01-03', amount_two: 99, days: \"date'2026-01-01', date'2026-01-03'\"}",
    )
    assert project.completed_instants("daily")[: len(first)] == first
    assert actions(project)[len(first) :] == ["replacecommit"]
    assert rows(project) == [(1, 1, "2026-01-01", 10), (2, 2, "2026-01-03", 99)]


def test_a_new_column_a_full_refresh_or_an_empty_result_creates_the_table_again(project):
    project.model("daily", DAILY.replace("{extra}", ""))
    project.dbt("run")
    first = project.completed_instants("daily")[0]

    project.model("daily", DAILY.replace("{extra}", ", 'x' as note"))
    project.dbt("run")
    assert project.completed_instants("daily")[0] != first
    assert "replacecommit" not in actions(project)
    assert project.scalar("select count(*) from {schema}.daily where note = 'x'") == 3

    created = project.completed_instants("daily")[0]
    project.dbt("run", "--full-refresh")
    assert project.completed_instants("daily")[0] != created
    assert "replacecommit" not in actions(project)

    project.dbt("run", "--vars", "{days: \"date'1999-01-01'\"}")
    assert project.scalar("select count(*) from {schema}.daily") == 0


def test_tables_without_a_precombine_key_or_any_key_rebuild_in_place_too(project):
    values = "select id, {{ var('v', 1) }} * id as v from (values (1), (2), (3)) as t(id)"
    project.model("keyed", "{{ config(materialized='table', unique_key='id') }} " + values)
    project.model("keyless", "{{ config(materialized='table') }} " + values)
    project.dbt("run")
    project.dbt("run", "--vars", "{v: 10}")
    for table in ("keyed", "keyless"):
        assert [a for _, _, a in project.completed_instants(table)] == ["commit", "replacecommit"]
        assert project.scalar(f"select sum(v) from {{schema}}.{table}") == 60
        assert project.scalar(f"select count(*) from {{schema}}.{table}") == 3
