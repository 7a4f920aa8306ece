"""Which metadata-table instants a dead writer left pending (rows as CALL show_timeline gives them)."""

from dbt.adapters.lakehouse.formats.hudi import recovery


def row(instant, action, state):
    return {"instant_time": instant, "action": action, "state": state}


def test_a_started_or_planned_compaction_is_pending():
    timeline = [
        row("20261123112900143", "compaction", "INFLIGHT"),
        row("20261123112856081", "deltacommit", "COMPLETED"),
        row("20261123112700000", "logcompaction", "REQUESTED"),
        row("20261123112600000", "compaction", "COMPLETED"),
    ]
    assert recovery.pending_metadata_compactions(timeline) == [
        "20261123112700000",
        "20261123112900143",
    ]


def test_a_pending_write_is_left_to_hudi():
    # Hudi rolls back a dead writer's delta commit by itself on the next write.
    timeline = [
        row("20261123112900143", "deltacommit", "INFLIGHT"),
        row("20261123112800000", "clean", "REQUESTED"),
    ]
    assert recovery.pending_metadata_compactions(timeline) == []


def test_metadata_table_path():
    assert (
        recovery.metadata_table_path("file:/lake/w/d.db/t/")
        == "file:/lake/w/d.db/t/.hoodie/metadata"
    )


def test_a_missing_metadata_table_is_recognised():
    assert recovery.is_missing_table(
        "org.apache.hudi.exception.TableNotFoundException: Hoodie table not found in path x"
    )
    assert not recovery.is_missing_table("java.io.IOException: disk full")


def test_a_local_table_without_a_metadata_table_is_not_asked(tmp_path):
    table = tmp_path / "t"
    (table / ".hoodie").mkdir(parents=True)
    assert recovery.has_no_metadata_table(f"file:{table}")
    assert recovery.has_no_metadata_table(str(table))
    (table / ".hoodie" / "metadata" / ".hoodie").mkdir(parents=True)
    assert not recovery.has_no_metadata_table(f"file://{table}/")


def test_a_remote_table_is_always_asked():
    assert recovery.local_path("s3a://bucket/lake/t") is None
    assert not recovery.has_no_metadata_table("hdfs://nn:8020/lake/t")
