"""A run killed while it creates its tables the first time, then killed again
while it writes them the first time: the next run completes every one, on
Hudi, Iceberg and Delta, for a `table` model, an incremental model, a seed and
a snapshot (writes/killed_creates.py says how; the same in a bucket:
object_store/test_s3_warehouse.py)."""

from __future__ import annotations

from tests.adapter.functional.crash import killed_creates as kc
from tests.dbt_harness import DbtProject, completed_instants


def test_a_run_killed_while_it_creates_its_tables_leaves_a_lake_the_next_run_completes(tmp_path):
    project = DbtProject(tmp_path / "project", "crash", tmp_path / "lake")
    kc.kill_while_creating(project, env={})
    # What wedged the lake: Hudi's folders written, with no completed instant
    # and no table in the catalog (the next run's notes say which were not).
    for kind in kc.KINDS:
        folder = project.table_dir(kc.node(kind, "hudi"))
        assert (folder / ".hoodie" / "hoodie.properties").is_file()
        assert completed_instants(folder) == []

    # The next run finds all twelve, removes what was never committed and
    # takes over Delta's and Iceberg's committed CTAS; killed again at each
    # table's first commit.
    removed, taken_over = kc.found_by_next_run(kc.kill_while_first_writing(project, env={}))
    assert removed == kc.ALL_NODES - kc.TAKEN_OVER
    assert taken_over == kc.TAKEN_OVER

    run = kc.complete(project, env={})
    # Hudi's first writes were in the catalog, in flight: rolled back by Hudi.
    removed, taken_over = kc.found_by_next_run(run.output())
    assert not {t for t in removed | taken_over if t.endswith("_hudi")}
    schema_folder = project.lake_dir / "warehouse" / "crash.db"
    assert kc.leftover_names(schema_folder) == []
    iceberg = project.lake_dir / "warehouse" / "iceberg" / "crash"
    assert sorted(p.name for p in iceberg.iterdir()) == sorted(
        kc.node(kind, "iceberg") for kind in kc.KINDS
    )
