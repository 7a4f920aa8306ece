"""lake_changes(): each upstream change is read once, whatever happens between runs."""

import json

import pytest

from tests.dbt_harness import failures

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
    project.model(
        "upstream", UPSTREAM.replace("compaction_every | default(99)", str(compaction_every))
    )
    project.model("change_log", CHANGE_LOG)


def land(project, batch, *extra):
    project.dbt("run", "--select", "upstream", "--vars", f"{{batch: {batch}}}", *extra)


def consume(project, expect_ok=True, **vars_):
    vars_text = "{" + ", ".join(f"{k}: {v}" for k, v in {"batch": 0, **vars_}.items()) + "}"
    return project.dbt("run", "--select", "change_log", "--vars", vars_text, expect_ok=expect_ok)


def log_rows(project):
    return sorted(
        tuple(r) for r in project.rows("select id, version, cost from {schema}.change_log")
    )


def versions(b):
    return [(i, b, i * 10 + b) for i in (1, 2, 3)]


BATCH_1, BATCH_2 = versions(1), versions(2)


# Clean after every write, keeping the slices of the latest commit only.
EAGER_CLEANING = {"upstream_cleaning": {"policy": "keep_latest_commits", "retain": 1}}


def cow_upstream(project, extra_columns=""):
    """The upstream as copy-on-write: every write rewrites its file group, so the
    cleaner has old slices to remove after each one."""
    model = UPSTREAM.replace("table_type='mor'", "table_type='cow'").replace(
        "compaction={'trigger': 'num_commits', 'delta_commits': compaction_every | default(99)},",
        "",
    )
    project.model("upstream", model.replace(" as cost\n", " as cost" + extra_columns + "\n"))


def land_cleaning(project, batch, **extra):
    project.dbt(
        "run",
        "--select",
        "upstream",
        "--vars",
        json.dumps({"batch": batch, **EAGER_CLEANING, **extra}),
    )


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
    assert (
        f"read {project.schema}.upstream (latest_state) after {upstream_completed} through" in out
    )
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
    cow_upstream(project)
    project.model("change_log", CHANGE_LOG)
    land(project, 1)
    consume(project)
    consumed = project.completed_instants("upstream")[-1][1]
    # Archive eagerly: keep 2-3 instants, clean all but the latest commit.
    tight = {
        "upstream_options": {
            "hoodie.keep.min.commits": 2,
            "hoodie.keep.max.commits": 3,
            "hoodie.metadata.enable": False,
        },
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
    current = sorted(
        tuple(r) for r in project.rows("select id, version, cost from {schema}.upstream")
    )
    assert set(current) <= set(log_rows(project))
    assert current == versions(5)


def test_upstream_clustering_and_cleaning_never_make_rows_count_twice(project):
    cow_upstream(project)
    project.model("change_log", CHANGE_LOG)
    land_cleaning(project, 1)
    consume(project)
    land_cleaning(project, 2)
    land_cleaning(project, 3)
    project.dbt("run-operation", "lake_cluster", "--args", "{model: upstream, order_by: [id]}")
    actions = [a for _, _, a in project.completed_instants("upstream")]
    assert "clean" in actions and "replacecommit" in actions
    consume(project)
    # The latest state of the range, once: the files of batch 2 were cleaned,
    # and clustering rewrote batch 3's records without re-emitting them.
    assert log_rows(project) == sorted(versions(1) + versions(3))
    consume(project)
    assert log_rows(project) == sorted(versions(1) + versions(3))
    land_cleaning(project, 4)
    consume(project)
    assert log_rows(project) == sorted(versions(1) + versions(3) + versions(4))


CDC_OPTIONS = {
    "upstream_options": {
        "hoodie.table.cdc.enabled": True,
        "hoodie.table.cdc.supplemental.logging.mode": "DATA_BEFORE_AFTER",
    }
}

# Every change the downstream reads, decoded from the after image (the date
# column checks that images decode to the upstream's own values).
CDC_LOG = """
    {{ config(materialized='incremental', incremental_strategy='append') }}
    select op,
           cast(get_json_object(after, '$.id') as int) as id,
           cast(get_json_object(after, '$.version') as int) as version,
           date_add(date'1970-01-01', cast(get_json_object(after, '$.day') as int)) as day
    from {{ lake_changes(ref('upstream'), mode='cdc', on_gap=var('on_gap', 'full')) }} as changes
"""


# Deltas, logged: sum(_sign * cost) over the log is the upstream's total cost.
CDC_DELTAS = """
    {{ config(materialized='incremental', incremental_strategy='append') }}
    select _sign, id, cost from {{ lake_signed_changes(ref('upstream'), ['id', 'cost']) }} as changes
"""


@pytest.mark.parametrize("on_gap", ["full", "fail"])
def test_cdc_read_of_changes_the_cleaner_removed_is_never_a_silent_gap(project, on_gap, capsys):
    cow_upstream(project, extra_columns=", date_add(date'2026-11-20', id) as day")
    project.model("cdc_log", CDC_LOG)
    project.model("cdc_deltas", CDC_DELTAS)

    def cdc_rows():
        return sorted(
            (r.op, r.id, r.version, str(r.day))
            for r in project.rows("select * from {schema}.cdc_log")
        )

    def changes(op, batch):
        return [(op, i, batch, f"2026-11-2{i}") for i in (1, 2, 3)]

    def read(model, expect_ok=True):
        return project.dbt(
            "run",
            "--select",
            *model.split(),
            "--vars",
            json.dumps({"batch": 0, "on_gap": on_gap}),
            expect_ok=expect_ok,
        )

    def delta_total():
        return project.scalar("select sum(_sign * cost) from {schema}.cdc_deltas")

    land_cleaning(project, 1, **CDC_OPTIONS)
    read("cdc_log cdc_deltas")  # the first read: the snapshot, as inserts
    land_cleaning(project, 2, **CDC_OPTIONS)
    read("cdc_log cdc_deltas")  # the cleaner kept what this range needs: an incremental cdc read
    assert cdc_rows() == sorted(changes("i", 1) + changes("u", 2))
    assert delta_total() == sum(i * 10 + 2 for i in (1, 2, 3))
    land_cleaning(project, 3, **CDC_OPTIONS)
    land_cleaning(project, 4, **CDC_OPTIONS)  # this clean removes batch 3's files

    # Deltas never fall back to a full read, whatever on_gap says: it would count twice.
    message = " ".join(failures(read("cdc_deltas", expect_ok=False)))
    assert "cleaner" in message and "--full-refresh" in message
    if on_gap == "fail":
        message = " ".join(failures(read("cdc_log", expect_ok=False)))
        assert "cleaner" in message and "--full-refresh" in message
        assert cdc_rows() == sorted(changes("i", 1) + changes("u", 2))
        return
    read("cdc_log")
    assert "cleaner has removed" in capsys.readouterr().out
    # Not a silent gap: every current record arrives again, as an insert.
    assert cdc_rows() == sorted(changes("i", 1) + changes("u", 2) + changes("i", 4))


# A consumer that keeps only some upstream rows: batches >= `from_batch`.
FILTERED_LOG = """
    {{ config(materialized='incremental', incremental_strategy='append') }}
    select id, version, cost
    from {{ lake_changes(ref('upstream'), on_gap='fail') }} as changes
    where changes.version >= {{ var('from_batch', 99) }}
"""


def test_a_run_that_keeps_no_row_still_moves_its_position(project, capsys):
    """Found by the soak: a model whose reads kept no row wrote no commit, so its
    position stayed where its last commit was; once the upstream archived that
    instant, its next read had to start over from the whole table (and a full
    re-read of an append model counts rows twice). Its position moves anyway."""
    cow_upstream(project)
    project.model("change_log", FILTERED_LOG)
    tight = {
        "upstream_options": {
            "hoodie.keep.min.commits": 2,
            "hoodie.keep.max.commits": 3,
            "hoodie.metadata.enable": False,
        },
        "upstream_cleaning": {"policy": "keep_latest_commits", "retain": 1},
    }
    ends = []
    for batch in (1, 2, 3, 4, 5):
        project.dbt("run", "--select", "upstream", "--vars", json.dumps({"batch": batch, **tight}))
        ends.append(
            [c for _, c, action in project.completed_instants("upstream") if action == "commit"][-1]
        )
        # on_gap='fail': a run that found its position archived would stop.
        project.dbt("run", "--select", "change_log", "--vars", "{from_batch: 5}")
    assert ends[0] not in [c for _, c, _ in project.completed_instants("upstream")], "archived"
    # Batches 1-4 kept no row: one commit (the table's creation by batch 1), then none.
    assert len(project.completed_instants("change_log")) == 2
    assert log_rows(project) == versions(5)
    # Batch 4's run recorded how far it read as a table property; batch 5's, in its commit.
    props = {r.key: r.value for r in project.rows("show tblproperties {schema}.change_log")}
    assert props[f"lakehouse.consumed.{project.schema}.upstream"] == ends[3]
    # A rerun reads nothing: no gap (on_gap='fail' would stop it), no row twice.
    project.dbt("run", "--select", "change_log", "--vars", "{from_batch: 1}")
    assert "no longer on" not in capsys.readouterr().out
    assert log_rows(project) == versions(5)


# A copy-on-write, append-only upstream (as the billing feed's ODS tables).
APPEND_UPSTREAM = """
    {{ config(materialized='incremental', table_type='cow', incremental_strategy='append') }}
    select id, {{ var('batch') }} as version, id * 10 + {{ var('batch') }} as cost, 'x' as wide
    from (select explode(sequence(1, 3)) as id)
"""


def test_a_copy_on_write_range_is_read_where_the_model_uses_it(project, capsys):
    """Its commits' files are read inside the model's query (only the columns
    and rows it needs), not copied whole into a scratch table first; a
    merge-on-read upstream's range is copied (merged once)."""
    project.model("upstream", APPEND_UPSTREAM)
    project.model("change_log", CHANGE_LOG)
    land(project, 1)
    consume(project)
    log = project.root / "logs" / "dbt.log"
    before = log.stat().st_size
    land(project, 2)
    consume(project)
    assert log_rows(project) == sorted(BATCH_1 + BATCH_2)
    assert ": 3 rows" in capsys.readouterr().out
    second_run = log.read_text()[before:]
    assert "hudi_table_changes(" in second_run
    assert "change_log__lakehouse_read_1" not in second_run

    project.model("upstream", UPSTREAM.replace("compaction_every | default(99)", "99"))
    project.dbt("run", "--select", "upstream", "--vars", "{batch: 3}", "--full-refresh")
    consume(project, on_gap="full")
    land(project, 4)
    before = log.stat().st_size
    consume(project)
    assert "change_log__lakehouse_read_1" in log.read_text()[before:]
