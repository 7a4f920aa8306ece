"""skip_unchanged: a Hudi table model whose upstreams have no new commit since
its last build is not rebuilt (no commit, same timeline); any new upstream
commit, a change of its SQL, or a non-Hudi upstream makes it rebuild."""

UPSTREAM = """
    {{ config(materialized='incremental', unique_key='id') }}
    select id, {{ var('v', 1) }} * id as v from (values (1), (2), (3)) as t(id)
"""

TOTALS = """
    {{{{ config(materialized='table', skip_unchanged=true) }}}}
    select sum(v) as total{extra} from {{{{ ref('{upstream}') }}}}
"""


def test_a_table_is_rebuilt_only_when_an_upstream_has_a_new_commit(project):
    project.model("events", UPSTREAM)
    project.model("totals", TOTALS.format(upstream="events", extra=""))
    project.dbt("run")
    built = project.completed_instants("totals")
    assert project.scalar("select total from {schema}.totals") == 6

    # Nothing new upstream: no rebuild, no commit.
    project.dbt("run", "--select", "totals")
    assert project.completed_instants("totals") == built

    # A new upstream commit: rebuilt, with the new values.
    project.dbt("run", "--vars", "{v: 10}")
    assert project.completed_instants("totals") != built
    assert project.scalar("select total from {schema}.totals") == 60
    rebuilt = project.completed_instants("totals")

    # A change of the model's own SQL: rebuilt.
    project.model("totals", TOTALS.format(upstream="events", extra=", count(*) as n"))
    project.dbt("run", "--vars", "{v: 10}")
    assert project.completed_instants("totals") != rebuilt
    assert project.scalar("select n from {schema}.totals") == 3


def test_a_table_reading_a_view_is_always_rebuilt(project):
    project.model("events", UPSTREAM)
    project.model("events_view", "{{ config(materialized='view') }} select * from {{ ref('events') }}")
    project.model("totals", TOTALS.format(upstream="events_view", extra=""))
    project.dbt("run")
    built = project.completed_instants("totals")
    project.dbt("run")
    assert project.completed_instants("totals") != built
    assert project.scalar("select total from {schema}.totals") == 6
