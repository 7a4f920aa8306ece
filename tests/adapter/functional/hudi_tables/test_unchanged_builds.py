"""skip_unchanged: a Hudi table model whose upstreams have no new commit since
its last build is not rebuilt (no commit, same timeline); any new upstream
commit, a change of its SQL, or a non-Hudi upstream makes it rebuild. An
incremental model with it is not run when its commit ranges are empty and its
other upstreams have no new commit."""

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
    project.model(
        "events_view", "{{ config(materialized='view') }} select * from {{ ref('events') }}"
    )
    project.model("totals", TOTALS.format(upstream="events_view", extra=""))
    project.dbt("run")
    built = project.completed_instants("totals")
    project.dbt("run")
    assert project.completed_instants("totals") != built
    assert project.scalar("select total from {schema}.totals") == 6


LABELS = """
    {{ config(materialized='incremental', unique_key='id') }}
    select id, '{{ var('label', 'a') }}' as label from (values (1), (2), (3)) as t(id)
"""

LABELLED = """
    {{{{ config(materialized='incremental', unique_key='id', skip_unchanged=true) }}}}
    select changes.id, changes.v, labels.label{extra}
    from {{{{ lake_changes(ref('events')) }}}} as changes
    join {{{{ ref('labels') }}}} as labels on changes.id = labels.id
"""

SKIPPED = "labelled: nothing new to read; not run"


def test_an_incremental_model_with_nothing_new_to_read_is_not_run(project):
    project.model("events", UPSTREAM)
    project.model("labels", LABELS)
    project.model("labelled", LABELLED.format(extra=""))
    project.dbt("run")
    built = project.completed_instants("labelled")
    assert len(built) == 1
    log = project.root / "logs" / "dbt.log"

    def run_labelled(*args):
        start = log.stat().st_size
        project.dbt("run", "--select", "labelled", *args)
        with open(log) as handle:
            handle.seek(start)
            return SKIPPED in handle.read()

    # Nothing new in events, no new commit on labels: not run at all.
    assert run_labelled()
    assert project.completed_instants("labelled") == built

    # A new commit on labels only: it runs (its join could give other rows);
    # its range of events is still empty, so it writes nothing.
    project.dbt("run", "--select", "labels", "--vars", "{label: b}")
    assert not run_labelled()
    assert project.completed_instants("labelled") == built

    # A new commit on events: it runs and writes the changed rows.
    project.dbt("run", "--select", "events", "--vars", "{v: 10}")
    assert not run_labelled()
    assert len(project.completed_instants("labelled")) == 2
    assert project.scalar("select sum(v) from {schema}.labelled") == 60
    assert project.scalar("select min(label) from {schema}.labelled") == "b"
    # ...and recorded what it was written from: the next run is skipped.
    assert run_labelled()

    # A change of its own source code: it runs.
    project.model("labelled", LABELLED.format(extra=", 1 as one"))
    assert not run_labelled("--vars", "{v: 10}")


DECLARING = """
    {{ config(materialized='incremental', unique_key='id', skip_unchanged=true) }}
    {% if var('nothing_new', false) %}{% do lake_nothing_to_read() %}{% endif %}
    select 1 as id, {{ var('v', 1) }} as v
"""


def test_a_model_that_says_it_has_nothing_new_to_read_is_not_run(project):
    # As a model reading a landing folder does when no file in it is new.
    project.model("landed", DECLARING)
    log = project.root / "logs" / "dbt.log"

    def run(*args):
        start = log.stat().st_size if log.exists() else 0
        project.dbt("run", "--vars", "{" + ", ".join(args) + "}")
        with open(log) as handle:
            handle.seek(start)
            return "landed: nothing new to read; not run" in handle.read()

    # A first run creates the table even when it says so.
    assert not run("nothing_new: true")
    built = project.completed_instants("landed")
    assert len(built) == 1
    # Said, on an existing table: no Spark work, no commit, the rows unchanged.
    assert run("nothing_new: true", "v: 2")
    assert project.completed_instants("landed") == built
    assert project.scalar("select v from {schema}.landed") == 1
    # Not said: it runs and writes.
    assert not run("v: 2")
    assert len(project.completed_instants("landed")) == 2
    assert project.scalar("select v from {schema}.landed") == 2
