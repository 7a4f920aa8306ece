"""Bad lake configs fail before any write, naming the model, the key and the fix."""

import pytest

from tests.functional.conftest import failures


@pytest.mark.parametrize(
    "config,expected",
    [
        ("table_type='merge_on_read'", ["bad_model", "table_type", "merge_on_read", "cow, mor"]),
        ("unique_key='id', precombine_key='updated_at'", ["bad_model", "precombine_key", "updated_at"]),
        ("hudi_options={'precombineKey': 'v'}", ["bad_model", "hudi_options", "precombineKey", "hoodie."]),
        ("incremental_strategy='merge'", ["bad_model", "unique_key", "merge"]),
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
