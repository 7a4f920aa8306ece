"""Data tests scoped to what a run wrote (var lakehouse_test_scope: changed).

The model's index is partition-local (bloom), so a key that comes again under
another partition lands as a second record: a duplicate that slipped past the
model's upsert. The scoped unique test must catch it in the batch that wrote
it, although the older copy was written by an earlier batch; a batch that
touches other keys does not re-read it; a plain `dbt test`, which wrote
nothing, checks the whole table."""

from __future__ import annotations

from tests.dbt_harness import REPO, failures

MODEL = """
    {{ config(
        materialized='incremental',
        table_type='cow',
        unique_key='event_id',
        precombine_key='version',
        partition_by='event_date',
        index={'type': 'bloom'},
    ) }}
    select event_id, version, event_date, cost from (values
        (1, 'e1', 1, '2026-11-20', 10),
        (1, 'e2', 1, '2026-11-20', 20),
        (1, 'e3', 1, '2026-11-21', 30),
        (2, 'e4', 1, '2026-11-21', 40),
        (2, 'e1', 2, '2026-11-21', 11),
        (3, 'e5', 1, '2026-11-22', 50),
        (3, 'e6', 1, '2026-11-22', cast(null as int))
    ) as t(batch, event_id, version, event_date, cost)
    where batch = {{ var('batch') }}
"""

SCHEMA = """
    models:
      - name: events
        columns:
          - name: event_id
            data_tests: [unique, not_null]
          - name: cost
            data_tests: [not_null]
"""


def build(project, batch: int, scope: str = "changed", expect_ok: bool = True):
    return project.dbt(
        "build", "--vars", f"{{batch: {batch}, lakehouse_test_scope: {scope}}}", expect_ok=expect_ok
    )


def statuses(result) -> dict:
    return {
        r.node.name: (str(r.status), r.failures, r.node.compiled_code or "")
        for r in result.result.results
        if r.node.resource_type == "test"
    }


def test_a_scoped_check_catches_a_duplicate_in_the_batch_that_wrote_it(project):
    project.model("events", MODEL)
    project.write("models/events.yml", SCHEMA)

    # Batch 1 creates the table: every row is new, every test reads the whole table.
    first = statuses(build(project, 1))
    assert {name: status for name, (status, _, _) in first.items()} == {
        "unique_events_event_id": "pass",
        "not_null_events_event_id": "pass",
        "not_null_events_cost": "pass",
    }
    assert all(
        "_hoodie_commit_time" not in sql and "hudi_table_changes" not in sql
        for _, _, sql in first.values()
    )

    # Batch 2 writes e1 again under another date: two records of e1.
    second = statuses(build(project, 2, expect_ok=False))
    status, found, sql = second["unique_events_event_id"]
    assert (status, found) == ("fail", 1)
    assert "_hoodie_commit_time >" in sql  # scoped, not a whole-table read
    # The keys written are looked for in the day the batch wrote (from its
    # commit's metadata), the duplicates of those keys in every day.
    assert "cast(`event_date` as string) = '2026-11-21'" in sql and "'2026-11-20'" not in sql
    assert project.scalar("select count(*) from {schema}.events where event_id = 'e1'") == 2

    # Batch 3 touches e5 and e6 only: the key check does not read e1 again, the
    # row check finds the null cost the batch brought.
    third = statuses(build(project, 3, expect_ok=False))
    assert third["unique_events_event_id"][:2] == ("pass", 0)
    assert "cast(`event_date` as string) = '2026-11-22'" in third["unique_events_event_id"][2]
    assert third["not_null_events_cost"][:2] == ("fail", 1)

    # A full check, and a plain `dbt test` (it wrote nothing), read everything.
    full = statuses(
        project.dbt("test", "--vars", "{batch: 3, lakehouse_test_scope: changed}", expect_ok=False)
    )
    assert full["unique_events_event_id"][:2] == ("fail", 1)
    assert "_hoodie_commit_time" not in full["unique_events_event_id"][2]
    # (a failing test fails the invocation; failures() names it)
    assert any(
        "unique_events_event_id" in line
        for line in failures(project.dbt("test", "--vars", "{batch: 3}", expect_ok=False))
    )


def test_a_test_after_a_run_checks_what_that_run_wrote(project):
    """`dbt run`, then `dbt test` told each table's instant before the run
    (lakehouse_changed_since): what continuous mode does to publish ADS before
    its checks. The tests read that run's writes, as in one `dbt build`."""
    project.model("events", MODEL)
    project.write("models/events.yml", SCHEMA)
    table = f"{project.schema}.events"

    def latest() -> str:
        return str(
            project.rows(f"call show_commits(table => '{table}', limit => 1)")[0].commit_time
        )

    def test_after(since: str, expect_ok: bool = True) -> dict:
        given = (
            f"{{lakehouse_test_scope: changed, lakehouse_changed_since: {{{table}: '{since}'}}}}"
        )
        return statuses(project.dbt("test", "--vars", given, expect_ok=expect_ok))

    project.dbt("run", "--vars", "{batch: 1}")
    before_2 = latest()
    project.dbt("run", "--vars", "{batch: 2}")  # e1 again under another date
    second = test_after(before_2, expect_ok=False)
    status, found, sql = second["unique_events_event_id"]
    assert (status, found) == ("fail", 1)
    assert "_hoodie_commit_time > '" + before_2 in sql  # batch 2's rows, not the table

    before_3 = latest()
    project.dbt("run", "--vars", "{batch: 3}")  # e5, e6 (a null cost): new keys only
    third = test_after(before_3, expect_ok=False)
    assert third["not_null_events_cost"][:2] == ("fail", 1)
    # Batch 3 repeats no key: the duplicate batch 2 wrote is not read again.
    assert third["unique_events_event_id"][:2] == ("pass", 0)
    assert "hudi_table_changes(" in third["not_null_events_cost"][2]

    # Listed with its latest instant, so that run wrote nothing to it: the
    # table is checked whole, as in a build that did not write it.
    whole = test_after(latest(), expect_ok=False)
    assert whole["unique_events_event_id"][:2] == ("fail", 1)
    assert "_hoodie_commit_time" not in whole["unique_events_event_id"][2]

    refused = project.dbt(
        "test",
        "--vars",
        "{lakehouse_test_scope: changed, lakehouse_changed_since: yesterday}",
        expect_ok=False,
    )
    assert "var lakehouse_changed_since is 'yesterday'" in " ".join(failures(refused))


def test_an_unknown_scope_is_refused_with_the_choices(project):
    project.model("events", MODEL)
    project.write("models/events.yml", SCHEMA)
    result = build(project, 1, scope="some", expect_ok=False)
    assert "lakehouse_test_scope is 'some'" in " ".join(failures(result))


NOT_NULL_COLUMNS = """
    models:
      - name: events
        data_tests:
          - not_null_columns:
              arguments:
                columns: [event_id, version, cost]
              config:
                store_failures: true
"""


def test_one_check_for_many_columns_names_the_null_ones_in_the_batch_that_wrote_them(project):
    # The warehouse's own generic test (macros/generic_tests/), one query for
    # every column of a model; it declares itself a row test, so it is scoped.
    project.write(
        "macros/not_null_columns.sql",
        (REPO / "macros/generic_tests/not_null_columns.sql").read_text(),
    )
    project.model("events", MODEL)
    project.write("models/events.yml", NOT_NULL_COLUMNS)
    name = "not_null_columns_events_event_id__version__cost"

    assert statuses(build(project, 1))[name][:2] == ("pass", 0)
    status, found, sql = statuses(build(project, 2))[name]
    assert (status, found) == ("pass", 0)
    assert "hudi_table_changes(" in sql  # scoped: an incremental read

    assert statuses(build(project, 3, expect_ok=False))[name][:2] == ("fail", 1)
    stored = project.rows(f"select null_columns from {{schema}}_dbt_test__audit.{name}")
    assert [row.null_columns for row in stored] == ["cost"]


# A view with one row per event (a dimension joined on), declared so: its key
# and row tests read the events the build wrote, in the days it wrote (the view
# has the events' partition column). The label for 2026-11-21 comes twice from
# batch 2 on, so every event of that day fans out in the view.
EVENTS = """
    {{ config(materialized='incremental', table_type='cow', unique_key='event_id', partition_by='event_date') }}
    select event_id, event_date, cost from (values
        (1, 'e1', date'2026-11-20', 10),
        (1, 'e2', date'2026-11-21', 20),
        (2, 'e3', date'2026-11-21', 30),
        (3, 'e4', date'2026-11-20', 40)
    ) as t(batch, event_id, event_date, cost)
    where batch = {{ var('batch') }}
"""

LABELS = """
    {{ config(materialized='table') }}
    select label_date, label from (values
        (1, date'2026-11-20', 'a'),
        (1, date'2026-11-21', 'b'),
        (2, date'2026-11-21', 'b again')
    ) as t(since_batch, label_date, label)
    where since_batch <= {{ var('batch') }}
"""

LABELLED = """
    {{ config(materialized='view', meta={'lakehouse_rows_from': {
        'model': '%s', 'key': 'event_id', 'partition_by': 'event_date'}}) }}
    select events.event_id, events.event_date, events.cost, labels.label
    from {{ ref('events') }} as events
    left join {{ ref('labels') }} as labels on events.event_date = labels.label_date
"""

LABELLED_SCHEMA = """
    models:
      - name: labelled
        columns:
          - name: event_id
            data_tests: [unique]
          - name: label
            data_tests: [not_null]
"""


def test_a_view_declaring_its_upstream_is_checked_on_the_rows_the_upstream_wrote(project):
    project.model("events", EVENTS)
    project.model("labels", LABELS)
    project.model("labelled", LABELLED % "events")
    project.write("models/labelled.yml", LABELLED_SCHEMA)
    unique, not_null = "unique_labelled_event_id", "not_null_labelled_label"

    # Batch 1 creates events: the view's tests read it whole.
    first = statuses(build(project, 1))
    assert (first[unique][:2], first[not_null][:2]) == (("pass", 0), ("pass", 0))
    assert "_hoodie_commit_time" not in first[unique][2]

    # Batch 2 writes e3 on the doubled day: the scoped check finds e3 only,
    # though e2 (batch 1, same day) fans out too.
    second = statuses(build(project, 2, expect_ok=False))
    status, found, sql = second[unique]
    assert (status, found) == ("fail", 1)
    assert "event_id in (select event_id from" in sql and "_hoodie_commit_time >" in sql
    # The view's rows are read from that day only, and so are the keys.
    assert (
        sql.count("cast(`event_date` as string) = '2026-11-21'") == 2 and "'2026-11-20'" not in sql
    )
    assert "_hoodie_commit_time >" in second[not_null][2]
    assert (
        project.scalar("select count(*) from {schema}.labelled where event_id in ('e2', 'e3')") == 4
    )

    # Batch 3 writes e4 only: its rows are sound, the old fan-out is not re-read.
    assert statuses(build(project, 3))[unique][:2] == ("pass", 0)
    # A plain `dbt test` (nothing written) reads the whole view: e2 and e3.
    assert statuses(
        project.dbt("test", "--vars", "{batch: 3, lakehouse_test_scope: changed}", expect_ok=False)
    )[unique][:2] == ("fail", 2)


def test_a_declared_upstream_the_view_does_not_select_from_is_refused(project):
    project.model("events", EVENTS)
    project.model("labels", LABELS)
    project.model("labelled", LABELLED % "labelz")
    project.write("models/labelled.yml", LABELLED_SCHEMA)
    message = " ".join(failures(build(project, 1, expect_ok=False)))
    assert (
        "lakehouse_rows_from names model 'labelz', which 'labelled' does not select from" in message
    )


# Merge-on-read, merged by version: batch 2 brings record 1 late, at an older
# version with no cost, and it loses to the stored one; batch 3 brings record
# 2 at a newer version with no cost, and it wins.
LATE = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id',
              precombine_key='version') }}
    select id, version, cost from (values
        (1, 1, 5, 10), (1, 2, 5, 20),
        (2, 1, 3, cast(null as int)),
        (3, 2, 9, cast(null as int))
    ) as t(batch, id, version, cost)
    where batch = {{ var('batch') }}
"""


def test_a_late_write_that_lost_is_not_checked_as_written(project):
    """Hudi's incremental read of a merge-on-read table returns a log record
    that lost to the stored one (apache/hudi#18943): a scoped row test must
    not fail on a row the table does not hold."""
    project.model("events", LATE)
    project.write(
        "models/events.yml",
        "models:\n  - name: events\n    columns:\n      - name: cost\n        data_tests: [not_null]\n",
    )
    build(project, 1)
    second = statuses(build(project, 2))
    status, found, sql = second["not_null_events_cost"]
    assert (status, found) == ("pass", 0)
    assert "_hoodie_commit_time >" in sql and "hudi_table_changes" not in sql
    assert sorted(project.rows(f"select id, version, cost from {project.schema}.events")) == [
        (1, 5, 10),
        (2, 5, 20),
    ]
    third = statuses(build(project, 3, expect_ok=False))
    assert third["not_null_events_cost"][:2] == ("fail", 1)
