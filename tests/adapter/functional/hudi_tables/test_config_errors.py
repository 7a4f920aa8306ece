"""Bad lake configs fail before any write, naming the model, the key and the fix."""

import pytest

from tests.dbt_harness import failures


# One row per phase where the write path raises (tests/adapter/unit/test_config_errors.py
# lists every mistake; these prove each phase stops `dbt run` before a write).
@pytest.mark.parametrize(
    "config,expected",
    [
        # Parsing the config (adapter.hudi_config): a top-level value, ...
        ("table_type='merge_on_read'", ["bad_model", "table_type", "merge_on_read", "cow, mor"]),
        (
            "hudi_options={'precombineKey': 'v'}",
            ["bad_model", "hudi_options", "precombineKey", "hoodie."],
        ),
        # ... a value inside a nested block, ...
        (
            "table_type='mor', unique_key='id', compaction={'trigger': 'daily'}",
            [
                "bad_model",
                "compaction.trigger",
                "daily",
                "num_commits, time_elapsed, num_and_time, num_or_time",
            ],
        ),
        # ... and dbt-spark's options disagreeing with the typed config.
        (
            "unique_key='id', options={'primaryKey': 'v'}",
            ["bad_model", "options.primaryKey", "'v'", "unique_key = 'id'", "Set it in one place"],
        ),
        # The strategy, once the materialization picks it (a merge without a
        # key appends, as in dbt-spark; an upsert needs one, and so do deletes).
        ("incremental_strategy='upsert'", ["bad_model", "unique_key", "upsert"]),
        (
            "incremental_strategy='merge', delete_condition=\"v = 'x'\"",
            ["bad_model", "delete_condition", "Deletes find their records by unique_key"],
        ),
        # The key columns, against what the model's SELECT outputs (id, v).
        (
            "unique_key='id', precombine_key='updated_at'",
            ["bad_model", "precombine_key", "updated_at", "it outputs: id, v"],
        ),
    ],
)
def test_bad_config_is_refused_with_a_clear_message(project, config, expected):
    project.model(
        "bad_model",
        f"""
        {{{{ config(materialized='incremental', {config}) }}}}
        select 1 as id, 'a' as v
        """,
    )
    result = project.dbt("run", expect_ok=False)
    message = " ".join(failures(result))
    for fragment in expected:
        assert fragment in message, f"{fragment!r} missing from: {message}"
    # Nothing was written: the table does not exist.
    assert not project.table_dir("bad_model").exists()


# Configs a Hudi snapshot refuses (snapshot.sql), and a typed-config mistake
# reached through the snapshot's own path to adapter.hudi_config.
@pytest.mark.parametrize(
    "config,expected",
    [
        ("delete_condition=\"op = 'D'\"", ["bad_snapshot", "delete_condition", "hard_deletes"]),
        ("compaction={'delta_commits': 3}", ["bad_snapshot", "compaction", "table_type: mor"]),
    ],
)
def test_bad_snapshot_config_is_refused_with_a_clear_message(project, config, expected):
    project.write(
        "snapshots/bad_snapshot.sql",
        f"""
        {{% snapshot bad_snapshot %}}
            {{{{ config(unique_key='id', strategy='check', check_cols='all', {config}) }}}}
            select 1 as id, 'a' as v
        {{% endsnapshot %}}
        """,
    )
    result = project.dbt("snapshot", expect_ok=False)
    message = " ".join(failures(result))
    for fragment in expected:
        assert fragment in message, f"{fragment!r} missing from: {message}"
    assert not project.table_dir("bad_snapshot").exists()


def test_full_refresh_rebuilds_with_new_settings(project):
    model = """
        {{{{ config(materialized='incremental', table_type='{t}', unique_key='id') }}}}
        select 1 as id, 'a' as v
    """
    project.model("t", model.format(t="cow"))
    project.dbt("run")
    assert project.hoodie_properties("t")["hoodie.table.type"] == "COPY_ON_WRITE"

    project.model("t", model.format(t="mor"))
    project.dbt("run", "--full-refresh")
    # The old table's files went with the drop: a fresh timeline of one deltacommit.
    assert project.hoodie_properties("t")["hoodie.table.type"] == "MERGE_ON_READ"
    assert [a for _, _, a in project.completed_instants("t")] == ["deltacommit"]
    assert project.scalar("select count(*) from {schema}.t") == 1
