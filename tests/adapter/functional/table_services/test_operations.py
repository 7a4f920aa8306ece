"""Run-operations: timeline, rollback of a bad load, savepoint and restore, clean, cluster."""

MODEL = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id', precombine_key='version') }}
    select id, {{ var('run') }} as version, {{ var('run') }} * 100 as cost
    from (values (1), (2)) as t(id)
    {% if var('run') == 3 %} union all select 3, 3, 999999 {% endif %}
"""


def load(project, runs):
    project.model("facts", MODEL)
    for run in runs:
        project.dbt("run", "--vars", f"{{run: {run}}}")


def test_rollback_retracts_a_bad_load_exactly(project):
    load(project, [1, 2])
    good = project.rows("select id, version, cost from {schema}.facts order by id")
    load(project, [3])  # the bad load: wrong costs and a record that should not exist
    assert project.scalar("select sum(cost) from {schema}.facts") == 3 * 100 * 2 + 999999

    bad_instant = project.completed_instants("facts")[-1][0]
    project.dbt(
        "run-operation", "lake_rollback", "--args", f"{{model: facts, instant: '{bad_instant}'}}"
    )
    assert project.rows("select id, version, cost from {schema}.facts order by id") == good
    assert bad_instant not in [i for i, _, _ in project.completed_instants("facts")]
    assert "rollback" in [a for _, _, a in project.completed_instants("facts")]


def test_savepoint_and_restore(project):
    load(project, [1])
    savepoint = project.completed_instants("facts")[-1][0]
    project.dbt("run-operation", "lake_savepoint", "--args", "{model: facts}")
    assert project.rows("call show_savepoints(table => '{schema}.facts')") == [(savepoint,)]

    load(project, [2, 3])
    assert project.scalar("select count(*) from {schema}.facts") == 3
    project.dbt(
        "run-operation", "lake_restore", "--args", f"{{model: facts, instant: '{savepoint}'}}"
    )
    rows = project.rows("select id, version, cost from {schema}.facts order by id")
    assert [tuple(r) for r in rows] == [(1, 1, 100), (2, 1, 100)]


def test_timeline_operation_lists_instants(project, capsys):
    load(project, [1, 2])
    result = project.dbt("run-operation", "lake_timeline", "--args", "{model: facts}")
    assert result.success
    instants = [i for i, _, _ in project.completed_instants("facts")]
    logged = capsys.readouterr().out
    for instant in instants:
        assert f"{instant}  deltacommit  COMPLETED" in logged


def test_clean_and_cluster_operations(project):
    project.model(
        "facts",
        """
        {{ config(materialized='incremental', unique_key='id', precombine_key='version',
                  cleaning={'policy': 'keep_latest_commits', 'retain': 1}) }}
        select id, {{ var('run') }} as version from (values (1), (2)) as t(id)
    """,
    )
    for run in (1, 2, 3):
        project.dbt("run", "--vars", f"{{run: {run}}}")
    project.dbt("run-operation", "lake_cluster", "--args", "{model: facts, order_by: [id]}")
    project.dbt("run-operation", "lake_clean", "--args", "{model: facts}")
    actions = [a for _, _, a in project.completed_instants("facts")]
    assert "replacecommit" in actions and "clean" in actions
    assert project.scalar("select sum(version) from {schema}.facts") == 6
