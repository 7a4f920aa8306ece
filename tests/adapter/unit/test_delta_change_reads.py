"""Planning change reads of a Delta upstream (formats/delta/change_ranges.py):
the range between versions, the gaps (a rebuild, a RESTORE, a log or VACUUM
that no longer reaches back), the positions a write records in its commit's
user metadata. On rows as Spark's `describe history` returns them; no Spark
here."""

from datetime import datetime, timedelta

import pytest
from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.formats.delta.change_ranges import plan_read
from dbt.adapters.lakehouse.formats.delta.history import History
from dbt.adapters.lakehouse.formats.merge_commits import wap_id

UP = "s.orders"
KEY = "hoodie.lakehouse.consumed." + UP
COLUMNS = [("id", "int"), ("v", "string")]
T0 = datetime(2026, 1, 1, 12, 0, 0)


def version(number, operation="MERGE", seconds=None, parameters=None, metadata=None):
    at = T0 + timedelta(seconds=number * 10 if seconds is None else seconds)
    return {
        "version": number,
        "timestamp": at,
        "operation": operation,
        "operationParameters": parameters or {},
        "userMetadata": metadata,
    }


def history(*more):
    rows = [
        version(0, "CREATE OR REPLACE TABLE AS SELECT"),
        version(1, metadata=wap_id("run-a", {KEY: "7"})),
        version(2, "OPTIMIZE"),
        version(3, "WRITE", metadata=wap_id("run-b", {KEY: "12"})),
        *more,
    ]
    # describe history lists the newest first.
    return History.from_rows(reversed(rows))


def plan(consumed, versions=None, on_gap="full", mode="latest_state"):
    return plan_read(UP, mode, consumed, versions or history(), on_gap, "m", COLUMNS, ["id"])


def test_a_range_reads_after_the_consumed_version_through_the_latest():
    read = plan("1")
    assert (read.begin, read.end, read.upstream_format, read.key) == ("1", "3", "delta", ("id",))
    assert read.is_incremental and read.note is None


def test_a_first_run_reads_whole_and_a_caught_up_one_reads_nothing():
    assert plan(None).begin is None and plan(None).end == "3"
    assert plan("3").is_empty and not plan("3").is_incremental
    assert History.from_rows([]).latest is None
    # Versions order as numbers, not as text.
    many = History.from_rows([version(n, "WRITE") for n in range(12)])
    assert many.latest == "11" and plan("9", many).is_incremental
    assert History.later("9", "10", None) == "10"


@pytest.mark.parametrize(
    ("operation", "said"),
    [
        ("RESTORE", "a RESTORE"),
        ("CREATE OR REPLACE TABLE AS SELECT", "a CREATE OR REPLACE TABLE AS SELECT"),
    ],
)
def test_a_rebuild_or_restore_after_the_consumed_version_is_a_gap(operation, said):
    versions = history(version(4, operation), version(5))
    read = plan("3", versions)
    assert read.begin is None and read.end == "5"
    assert f"version 4, {said}" in read.note and "Reading the full table" in read.note
    with pytest.raises(CompilationError, match="--full-refresh --select m"):
        plan("3", versions, on_gap="fail")
    # Read from after it: no gap.
    assert plan("4", versions).begin == "4"


def test_a_version_the_log_no_longer_holds_or_beyond_the_latest_is_a_gap():
    trimmed = History.from_rows([version(5), version(6)])
    assert "oldest version its log keeps (5)" in plan("2", trimmed).note
    assert plan("4", trimmed).begin == "4"  # 5 onwards is all there
    assert "after that table's latest version" in plan("9").note


def test_a_vacuum_that_may_have_deleted_the_range_files_is_a_gap():
    # Version 4 at 40 s; a VACUUM at 100 s keeping what was removed in its
    # last 70 s keeps the files of version 4 on (removed at 40 s or later).
    def vacuum(retention_seconds):
        return version(
            5,
            "VACUUM START",
            seconds=100,
            parameters={"specifiedRetentionMillis": str(retention_seconds * 1000)},
        )

    assert plan("3", history(version(4), vacuum(70))).begin == "3"
    read = plan("3", history(version(4), vacuum(50)))
    assert read.begin is None and "the VACUUM of version 5 may have deleted" in read.note
    # Only the first version of the range counts, and VACUUM's own commits
    # are none: a reader of 4 is caught up, and reads 6 after it.
    assert plan("4", history(version(4), vacuum(50))).is_empty
    assert plan("4", history(version(4), vacuum(50), version(6, seconds=110))).begin == "4"
    # As a Thrift server sends it: the parameters as JSON text.
    as_text = dict(vacuum(50), operationParameters='{"specifiedRetentionMillis":"50000"}')
    assert plan("3", history(version(4), as_text)).begin is None
    # A VACUUM without a retention of its own keeps Delta's default.
    default = version(5, "VACUUM START", seconds=100, parameters={"defaultRetentionMillis": "0"})
    assert plan("3", history(version(4), default)).begin is None


def test_the_recorded_position_is_the_latest_commit_that_recorded_one():
    assert history().recorded(KEY) == "12"
    assert history(version(4)).recorded(KEY) == "12"  # a commit of another writer
    assert History.from_rows([version(0, "WRITE", metadata="someone else's")]).recorded(KEY) is None
