"""lake_changes(): each upstream change is read once, whatever happens between runs."""

import json

import pytest

from tests.functional.conftest import failures

# The upstream: a MOR table upserted by key, one batch per run (var `batch`):
# batch b writes a new version b of records 1-3 (updates go to log files, which
# is what compaction later merges).
UPSTREAM = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id', precombine_key='version',
              compaction={'trigger': 'num_commits', 'delta_commits': compaction_every | default(99)},
              hudi_options=var('upstream_options', {}), cleaning=var('upstream_cleaning', none)) }}
    select id, {{ var('batch') }} as version, id * 10 + {{ var('batch') }} as cost
    from (select explode(sequence(1, 3)) as id)
"""

# The downstream log: every row it reads is appended, so a row read twice shows
# up twice. `fail` makes the write die after the read (assert_true is evaluated
# while Hudi writes), standing in for a run killed between read and commit.
CHANGE_LOG = """
    {{ config(materialized='incremental', incremental_strategy='append') }}
    select id, version, cost, assert_true({{ var('fail', 0) }} = 0) is null as ok
    from {{ lake_changes(ref('upstream'), on_gap=var('on_gap', 'full')) }} as changes
"""


def setup(project, compaction_every=99):
    project.model("upstream", UPSTREAM.replace("compaction_every | default(99)", str(compaction_every)))
    project.model("change_log", CHANGE_LOG)


def land(project, batch, *extra):
    project.dbt("run", "--select", "upstream", "--vars", f"{{batch: {batch}}}", *extra)


def consume(project, expect_ok=True, **vars_):
    vars_text = "{" + ", ".join(f"{k}: {v}" for k, v in {"batch": 0, **vars_}.items()) + "}"
    return project.dbt("run", "--select", "change_log", "--vars", vars_text, expect_ok=expect_ok)


def log_rows(project):
    return sorted(tuple(r) for r in project.rows("select id, version, cost from {schema}.change_log"))


def versions(b):
    return [(i, b, i * 10 + b) for i in (1, 2, 3)]


BATCH_1, BATCH_2 = versions(1), versions(2)


def test_rerun_after_success_reads_nothing_and_commits_nothing(project):
    setup(project)
    land(project, 1)
    consume(project)
    assert log_rows(project) == BATCH_1
    commits = project.completed_instants("change_log")
    consume(project)
    assert log_rows(project) == BATCH_1
    assert project.completed_instants("change_log") == commits

    land(project, 2)
    consume(project)
    assert log_rows(project) == sorted(BATCH_1 + BATCH_2)


def test_position_is_stored_in_the_models_own_commit(project, capsys):
    setup(project)
    land(project, 1)
    consume(project)
    upstream_completed = project.completed_instants("upstream")[-1][1]
    key = f"hoodie.lakehouse.consumed.{project.schema}.upstream"
    last = project.completed_instants("change_log")[-1][0]
    rows = project.rows(
        f"call show_commit_extra_metadata(table => '{{schema}}.change_log', instant_time => '{last}', metadata_key => '{key}')"
    )
    assert [r.metadata_value for r in rows] == [upstream_completed]
    land(project, 2)
    consume(project)
    out = capsys.readouterr().out
    # The run says what it read: range and rows.
    assert f"read {project.schema}.upstream (latest_state) after {upstream_completed} through" in out
    assert ": 3 rows" in out


def test_run_killed_between_read_and_commit_rereads_the_same_range(project):
    setup(project)
    land(project, 1)
    consume(project)
    land(project, 2)
    result = consume(project, expect_ok=False, fail=1)
    assert "assert_true" in " ".join(failures(result)).lower() or failures(result)
    assert log_rows(project) == BATCH_1
    consume(project)
    assert log_rows(project) == sorted(BATCH_1 + BATCH_2)


def test_upstream_compaction_never_makes_rows_count_twice(project):
    setup(project, compaction_every=2)
    for batch in (1, 2, 3):
        land(project, batch)
        consume(project)
    actions = [a for _, _, a in project.completed_instants("upstream")]
    assert "commit" in actions, "the upstream compacted between runs"
    # Each version of each record, once.
    assert log_rows(project) == sorted(versions(1) + versions(2) + versions(3))


@pytest.mark.parametrize("on_gap", ["full", "fail"])
def test_consumed_instant_archived_upstream_is_never_a_silent_gap(project, on_gap, capsys):
    # A COW upstream without metadata table archives as soon as it may: on MOR,
    # Hudi keeps delta commits since the last compaction on the active timeline.
    project.model("upstream", UPSTREAM.replace("table_type='mor'", "table_type='cow'")
                  .replace("compaction={'trigger': 'num_commits', 'delta_commits': compaction_every | default(99)},", ""))
    project.model("change_log", CHANGE_LOG)
    land(project, 1)
    consume(project)
    consumed = project.completed_instants("upstream")[-1][1]
    # Archive eagerly: keep 2-3 instants, clean all but the latest commit.
    tight = {
        "upstream_options": {"hoodie.keep.min.commits": 2, "hoodie.keep.max.commits": 3,
                             "hoodie.metadata.enable": False},
        "upstream_cleaning": {"policy": "keep_latest_commits", "retain": 1},
    }
    for batch in (2, 3, 4, 5):
        project.dbt("run", "--select", "upstream", "--vars", json.dumps({"batch": batch, **tight}))
    assert consumed not in [c for _, c, _ in project.completed_instants("upstream")], "archived"
    if on_gap == "fail":
        message = " ".join(failures(consume(project, expect_ok=False, on_gap="fail")))
        assert "no longer on" in message and "--full-refresh" in message
        return
    consume(project)
    assert "no longer on" in capsys.readouterr().out
    # The full read brought every current record: nothing was skipped.
    current = sorted(tuple(r) for r in project.rows("select id, version, cost from {schema}.upstream"))
    assert set(current) <= set(log_rows(project))
    assert current == versions(5)
