"""The embedded session is one per process: a profile that asks it for
another lake, once it runs for one, is refused before anything is written,
instead of having its tables written into the first lake (what a Python
orchestrator calling dbt twice in one process, with two targets, would get)."""

from tests.dbt_harness import DbtProject, failures

MODEL = "{{ config(materialized='table') }} select 1 as id"


def test_a_second_lake_in_one_process_is_refused_and_nothing_is_written(project, tmp_path):
    project.model("first", MODEL)
    project.dbt("run")  # this process's session is for the test lake (or was already)
    assert project.table_dir("first").is_dir()

    other = DbtProject(tmp_path / "other", project.schema + "_other", tmp_path / "other_lake")
    other.model("second", MODEL)
    result = other.dbt("run", expect_ok=False)
    said = str(result.exception or failures(result))
    assert (
        f"This profile's embedded Spark session is for lake_dir {tmp_path / 'other_lake'}" in said
    )
    assert f"started its embedded session for lake_dir {project.lake_dir.resolve()}" in said
    assert "one `dbt` command per target" in said
    # Neither lake got the second project's table.
    assert not other.table_dir("second").exists()
    assert not project.table_dir("second", other.schema).exists()
    assert not project.rows(f"show schemas like '{other.schema}'")

    # The first lake still works in this process.
    project.dbt("run")
