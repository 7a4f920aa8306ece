"""Planning change reads of an Iceberg upstream (formats/iceberg/change_ranges.py):
the range between snapshot ids, the gaps, the positions a write records in
its write-audit-publish id. On rows as Spark returns them; no Spark here."""

import json

import pytest
from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.formats.iceberg.change_ranges import plan_read
from dbt.adapters.lakehouse.formats.iceberg.history import Ancestry
from dbt.adapters.lakehouse.formats.merge_commits import parse_wap_id, wap_id

UP = "iceberg.s.orders"
KEY = "hoodie.lakehouse.consumed." + UP
COLUMNS = [("id", "int"), ("v", "string")]


def snapshot(sid, parent, operation="overwrite", deletes=0, wap=None, published=None):
    return (sid, parent, operation, str(deletes), wap, published)


# 10 <- 11 <- 12 (a rewrite) <- 13; 14 was staged on 13 and never published;
# 9 was rolled back (not an ancestor).
ROWS = [
    snapshot(9, None),
    snapshot(10, None, "append"),
    snapshot(11, 10, wap=wap_id("run-a", {KEY: "100"})),
    snapshot(12, 11, "replace"),
    snapshot(13, 12),
    snapshot(14, 13, wap=wap_id("run-b", {KEY: "999"})),
]


def ancestry(rows=ROWS, current="13"):
    return Ancestry.from_rows(rows, current)


def plan(consumed, history=None, on_gap="full", mode="latest_state"):
    return plan_read(UP, mode, consumed, history or ancestry(), on_gap, "m", COLUMNS, ["id"])


def test_the_ancestry_follows_parents_from_the_current_snapshot():
    assert ancestry().ids == ["10", "11", "12", "13"]
    assert ancestry().current == "13"
    assert Ancestry.from_rows([], None).current is None
    # Without a current snapshot given: the ancestor that is no ancestor's parent.
    flagged = [row + (row[0] in (10, 11, 12, 13),) for row in ROWS]
    assert Ancestry.from_rows(flagged).ids == ["10", "11", "12", "13"]


def test_a_range_reads_after_the_consumed_snapshot_through_the_current_one():
    read = plan("11")
    assert (read.begin, read.end, read.upstream_format, read.key) == (
        "11",
        "13",
        "iceberg",
        ("id",),
    )
    assert read.is_incremental and not read.is_empty and read.note is None


def test_a_first_run_reads_whole_and_a_caught_up_one_reads_nothing():
    first = plan(None)
    assert (first.begin, first.end, first.is_incremental) == (None, "13", False)
    caught_up = plan("13")
    assert caught_up.is_empty and not caught_up.is_incremental


@pytest.mark.parametrize("consumed", ["9", "14", "0"])
def test_a_snapshot_that_is_no_ancestor_is_a_gap(consumed):
    read = plan(consumed)
    assert read.begin is None and read.end == "13"
    assert "no longer an ancestor" in read.note and "full table" in read.note
    with pytest.raises(CompilationError, match="--full-refresh --select m"):
        plan(consumed, on_gap="fail")


def test_delete_files_after_the_consumed_snapshot_are_a_gap_naming_the_fix():
    rows = ROWS[:-1] + [snapshot(15, 13, deletes=2), snapshot(16, 15, deletes=2)]
    history = ancestry(rows, "16")
    read = plan("13", history)
    assert read.begin is None and "15, 16" in read.note and "table_type: cow" in read.note
    # Once a rewrite has removed them, what follows it reads again.
    rows += [snapshot(17, 16, "replace", deletes=0), snapshot(18, 17)]
    assert plan("17", ancestry(rows, "18")).begin == "17"


def test_a_rewrite_with_delete_files_alone_is_no_gap():
    rows = ROWS[:-1] + [snapshot(15, 13, "replace", deletes=1)]
    assert plan("13", ancestry(rows, "15")).begin == "13"


def test_the_recorded_position_is_the_latest_ancestors_and_staged_ones_do_not_count():
    # 14 (staged, claims 999) is no ancestor: 11's record stands.
    assert ancestry().recorded(KEY) == "100"
    published = ROWS + [snapshot(15, 13, published=wap_id("run-c", {KEY: "200"}))]
    assert ancestry(published, "15").recorded(KEY) == "200"
    assert ancestry().recorded("hoodie.lakehouse.consumed.other") is None


def test_the_later_position_is_the_later_ancestor_not_the_larger_number():
    history = ancestry()
    assert history.later("13", "10") == "13"
    assert history.later("11", None) == "11"
    assert history.later("9", "12") == "12"  # 9 is no ancestor
    assert history.later("9", None) == "9"  # kept, so that planning sees the gap
    assert history.later(None, None) is None


def test_a_wap_id_holds_the_positions_and_a_foreign_one_holds_none():
    text = wap_id("run-a", {KEY: "100"})
    assert text.startswith("lakehouse:") and " " not in text and "'" not in text
    assert json.loads(text.split(":", 1)[1])["run"] == "run-a"
    assert parse_wap_id(text) == {KEY: "100"}
    odd = wap_id("run-a", {"hoodie.lakehouse.consumed.iceberg.s.`t`": "1"})
    assert "`" not in odd and parse_wap_id(odd) == {"hoodie.lakehouse.consumed.iceberg.s.`t`": "1"}
    assert parse_wap_id("nightly-etl-42") is None
    assert parse_wap_id("lakehouse:not json") is None
    assert parse_wap_id(None) is None
