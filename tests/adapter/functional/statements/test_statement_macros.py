"""A project changes a statement the adapter runs by defining its
lakehouse__* macro: dbt finds the project's before the adapter's."""

# The adapter's own show_commits, marked: the marker in dbt's log shows whose
# SQL ran, and the runs still read the timeline right.
OWN_SHOW_COMMITS = """
{% macro lakehouse__show_commits(table, limit) -%}
/* the project's show_commits */ call show_commits(table => '{{ table }}', limit => {{ limit }})
{%- endmacro %}
"""

EVENTS = """
{{ config(materialized='incremental', unique_key='id', incremental_strategy='upsert') }}
select id, {{ var('batch') }} as version from (select explode(sequence(1, 3)) as id)
{% if is_incremental() %} where id <= {{ var('batch') }} {% endif %}
"""


def test_a_projects_statement_macro_is_the_one_run(project):
    project.write("macros/own_statements.sql", OWN_SHOW_COMMITS)
    project.model("events", EVENTS)
    log = project.root / "logs" / "dbt.log"
    project.dbt("run", "--vars", "{batch: 1}")
    before = log.stat().st_size if log.exists() else 0
    project.dbt("run", "--vars", "{batch: 2}")
    second = log.read_text()[before:]
    assert "/* the project's show_commits */ call show_commits(" in second
    assert "limit => " in second
    # The upsert's commit came after the first run's: two commits on the timeline.
    commits = [i for i in project.completed_instants("events") if i[2] in ("commit", "deltacommit")]
    assert len(commits) == 2
    assert sorted(
        (r.id, r.version) for r in project.rows("select id, version from {schema}.events")
    ) == [(1, 2), (2, 2), (3, 1)]
