"""Planning a change read, and its SQL from the statement macros (no Spark)."""

import pytest
from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.change_reads import ChangeRead, Timeline, plan_read
from dbt.adapters.lakehouse.change_reads.planner import ChangeReadPlanner
from dbt.adapters.lakehouse.change_reads.queries import ChangeReadQueries
from dbt.adapters.lakehouse.formats.hudi import change_reads as hudi_change_reads
from dbt.adapters.lakehouse.formats.hudi.change_ranges import written_on_pending_compactions
from dbt.adapters.lakehouse.statements import Statements

QUERIES = ChangeReadQueries(Statements())
changed_keys_sql = QUERIES.changed_keys
signed_changes_sql = QUERIES.signed_changes


def sql_of(read):
    return QUERIES.relation(read)


def image_value(image, field, data_type):
    return Statements().sql("cdc_image_value", image=image, field=field, data_type=data_type)


ACTIVE = ["20261122100000000", "20261122100500000", "20261122101000000"]
# Each write's instant (when it was requested) is a minute before it completed.
REQUESTED = ["20261122095900000", "20261122100400000", "20261122100900000"]
TIMELINE = Timeline(tuple(zip(REQUESTED, ACTIVE, strict=True)))


def test_first_run_reads_everything_up_to_the_latest_instant():
    read = plan_read("dwd.events", "latest_state", None, TIMELINE, "full", "dws")
    assert (read.begin, read.end, read.note) == (None, ACTIVE[-1], None)
    assert (
        sql_of(read)
        == f"(select * from hudi_table_changes('dwd.events', 'latest_state', 'earliest', '{ACTIVE[-1]}'))"
    )


def test_incremental_run_reads_after_the_consumed_instant():
    read = plan_read("dwd.events", "cdc", ACTIVE[0], TIMELINE, "full", "dws")
    assert (read.begin, read.end) == (ACTIVE[0], ACTIVE[-1])
    assert f"'cdc', '{ACTIVE[0]}', '{ACTIVE[-1]}'" in sql_of(read)


def test_nothing_new_is_an_empty_read():
    read = plan_read("dwd.events", "latest_state", ACTIVE[-1], TIMELINE, "full", "dws")
    assert read.is_empty and sql_of(read).endswith("where false)")


def test_upstream_without_commits_is_empty():
    read = plan_read("dwd.events", "latest_state", None, Timeline(), "full", "dws")
    assert read.is_empty and sql_of(read) == "(select * from dwd.events where false)"


def test_consumed_instant_gone_falls_back_to_a_full_read_with_a_note():
    read = plan_read("dwd.events", "latest_state", "20261122090000000", TIMELINE, "full", "dws")
    assert read.begin is None and read.end == ACTIVE[-1]
    assert "dws" in read.note and "20261122090000000" in read.note


def test_consumed_instant_gone_fails_when_asked():
    with pytest.raises(CompilationError) as excinfo:
        plan_read("dwd.events", "latest_state", "20261122090000000", TIMELINE, "fail", "dws")
    assert "--full-refresh" in str(excinfo.value)


@pytest.mark.parametrize("arg,value", [("mode", "snapshot"), ("on_gap", "skip")])
def test_bad_arguments_are_refused(arg, value):
    kwargs = {"mode": "latest_state", "on_gap": "full", arg: value}
    with pytest.raises(CompilationError) as excinfo:
        plan_read("dwd.events", kwargs["mode"], None, ACTIVE, kwargs["on_gap"], "dws")
    assert value in str(excinfo.value) and "dws" in str(excinfo.value)


def test_cdc_images_decode_dates_and_timestamps():
    assert (
        image_value("c.image", "event_date", "date")
        == "date_add(date'1970-01-01', cast(c.image.`event_date` as int))"
    )
    assert image_value("c.image", "event_at", "timestamp").startswith("timestamp_micros(")
    assert image_value("c.image", "account_id", "bigint") == "cast(c.image.`account_id` as bigint)"


def test_changed_keys_use_both_images_incrementally_and_the_snapshot_in_full():
    types = {"event_date": "date", "account_id": "bigint"}
    columns = tuple(types.items())
    incremental = changed_keys_sql(
        ChangeRead("dwd.events", "cdc", ACTIVE[0], ACTIVE[-1], columns=columns),
        ["event_date", "account_id"],
    )
    assert "c.before is not null and c.before != 'null'" in incremental
    assert "c.after is not null and c.after != 'null'" in incremental
    full = changed_keys_sql(
        ChangeRead("dwd.events", "cdc", None, ACTIVE[-1], columns=columns), ["account_id"]
    )
    assert "from dwd.events)" in full and "hudi_table_changes" not in full
    with pytest.raises(CompilationError):
        changed_keys_sql(
            ChangeRead("dwd.events", "cdc", None, ACTIVE[-1], columns=columns), ["industry"]
        )


def test_cdc_read_of_cleaned_writes_falls_back_to_a_full_read():
    # The cleaner kept slices from the 3rd write on: the 2nd write's images are gone.
    cleaned = Timeline(TIMELINE.commits, retained_from=REQUESTED[2])
    read = plan_read("dwd.events", "cdc", ACTIVE[0], cleaned, "full", "dws", [("id", "bigint")])
    assert read.begin is None and "cleaner" in read.note and REQUESTED[2] in read.note
    with pytest.raises(CompilationError) as excinfo:
        plan_read("dwd.events", "cdc", ACTIVE[0], cleaned, "fail", "dws")
    assert "cleaner" in str(excinfo.value) and "--full-refresh" in str(excinfo.value)
    # Reading after the 2nd write needs only slices the cleaner kept.
    assert plan_read("dwd.events", "cdc", ACTIVE[1], cleaned, "fail", "dws").begin == ACTIVE[1]
    # A latest_state read does not need old slices: Hudi reads the current ones.
    assert (
        plan_read("dwd.events", "latest_state", ACTIVE[0], cleaned, "fail", "dws").begin
        == ACTIVE[0]
    )


def test_full_cdc_read_is_the_snapshot_as_inserts_with_encoded_images():
    read = plan_read(
        "dwd.events",
        "cdc",
        None,
        TIMELINE,
        "full",
        "dws",
        [("id", "bigint"), ("event_date", "date"), ("event_at", "timestamp")],
    )
    sql = sql_of(read)
    assert "hudi_table_changes" not in sql and "from dwd.events" in sql
    assert "'i' as op" in sql and "cast(null as string) as before" in sql
    assert "'event_date', datediff(event_date, date'1970-01-01')" in sql
    assert "'event_at', unix_micros(event_at)" in sql


def test_signed_changes_add_after_images_and_subtract_before_images():
    types = {"event_date": "date", "cost_micros": "bigint"}
    columns = tuple(types.items())
    read = ChangeRead(
        "dwd.events",
        "cdc",
        ACTIVE[0],
        ACTIVE[-1],
        columns=columns,
        staged_as="dws.spend__lakehouse_read_1",
    )
    sql = signed_changes_sql(read, ["event_date", "cost_micros"], "lake_signed_changes")
    assert "select 1 as _sign" in sql and "c.after is not null" in sql
    assert "select -1 as _sign" in sql and "c.before is not null" in sql
    # Each image is parsed once, into the fields asked for.
    schema = "'`event_date` string, `cost_micros` string'"
    assert f"from_json(c.after, {schema}) as image" in sql
    assert f"from_json(c.before, {schema}) as image" in sql
    assert sql.count("from_json(") == 2 and "get_json_object" not in sql
    # The staged range is read, not the upstream again.
    assert (
        "from (select * from dws.spend__lakehouse_read_1) as c" in sql
        and "hudi_table_changes" not in sql
    )
    full = signed_changes_sql(
        ChangeRead("dwd.events", "cdc", None, ACTIVE[-1], columns=columns), ["cost_micros"], "m"
    )
    assert full == "(select 1 as _sign, cost_micros from dwd.events)"


# A merge-on-read timeline: delta commits D1, D2; compaction C planned after D2;
# D3 requested while C was pending, C completed after D3; then D4.
WEDGED = (
    ("20261122100000000", "20261122100001000", "deltacommit"),
    ("20261122100100000", "20261122100101000", "deltacommit"),
    ("20261122100200000", "20261122100400000", "commit"),
    ("20261122100300000", "20261122100301000", "deltacommit"),
    ("20261122100500000", "20261122100501000", "deltacommit"),
)


def test_delta_commits_written_on_a_pending_compaction_are_found():
    assert written_on_pending_compactions(WEDGED) == (
        ("20261122100300000", "20261122100301000", "20261122100200000"),
    )
    # A compaction that completed before the next delta commit began: none.
    in_order = [*WEDGED[:2], ("20261122100200000", "20261122100250000", "commit"), *WEDGED[3:]]
    assert written_on_pending_compactions(in_order) == ()
    # Copy-on-write writes are commits, never delta commits: none either.
    assert written_on_pending_compactions([(i, c, "commit") for i, c, _ in WEDGED]) == ()


def test_cdc_range_holding_such_a_delta_commit_is_a_gap_and_later_ranges_are_not():
    timeline = Timeline.from_commits(WEDGED)
    consumed = WEDGED[1][1]  # after D2: the range holds D3
    with pytest.raises(CompilationError) as excinfo:
        plan_read("dwd.events", "cdc", consumed, timeline, "fail", "dws")
    message = str(excinfo.value)
    assert "20261122100300000" in message and "20261122100200000" in message
    assert "dbt run --full-refresh --select dws" in message
    full = plan_read("dwd.events", "cdc", consumed, timeline, "full", "dws", [("id", "bigint")])
    assert full.begin is None and "Reading the full table instead" in full.note
    # After D3 the range holds C and D4 only: Hudi reads it.
    assert (
        plan_read("dwd.events", "cdc", WEDGED[3][1], timeline, "fail", "dws").begin == WEDGED[3][1]
    )
    # A latest_state read of the same range works: no gap.
    assert (
        plan_read("dwd.events", "latest_state", consumed, timeline, "fail", "dws").begin == consumed
    )


def test_a_compaction_in_a_cdc_range_needs_no_slice_the_cleaner_removed():
    """A run killed during a compaction: the consumer read the delta commit
    before it; the next write ran the compaction, then cleaned what it
    compacted (retaining from that write on). The range holds the compaction
    and the write, whose slices are kept: no gap."""
    commits = [
        ("20261122100000000", "20261122100001000", "deltacommit"),
        ("20261122100100000", "20261122100101000", "deltacommit"),
        ("20261122100200000", "20261122100400000", "commit"),  # completed by the next write
        ("20261122100500000", "20261122100501000", "deltacommit"),
    ]
    timeline = Timeline.from_commits(commits, retained_from="20261122100500000")
    read = plan_read("dwd.events", "cdc", commits[1][1], timeline, "fail", "dws")
    assert (read.begin, read.end) == (commits[1][1], "20261122100501000")
    # Had the consumer not read the second delta commit, its slices are gone.
    with pytest.raises(CompilationError, match="cleaner"):
        plan_read("dwd.events", "cdc", commits[0][1], timeline, "fail", "dws")
    # On copy-on-write every commit is a write: a commit is never skipped.
    cow = Timeline.from_commits([(i, c, "commit") for i, c, _ in commits], "20261122100500000")
    with pytest.raises(CompilationError, match="cleaner"):
        plan_read("dwd.events", "cdc", commits[1][1], cow, "fail", "dws")


@pytest.mark.parametrize(
    "mode, check_current, table_type, staged",
    [
        ("cdc", False, "cow", True),
        ("latest_state", True, "mor", True),
        ("latest_state", False, "mor", True),
        ("latest_state", False, "cow", False),
    ],
)
def test_a_range_is_copied_before_the_query_only_where_reading_it_costs(
    mode, check_current, table_type, staged
):
    read = ChangeRead("ods.events", mode, ACTIVE[0], ACTIVE[-1], check_current=check_current)
    if mode == "latest_state":  # as Hudi prepares an incremental latest_state read
        read = hudi_change_reads.prepared(read, {"type": table_type}, [])
    assert ChangeReadPlanner._worth_staging(read) is staged
