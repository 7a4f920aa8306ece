"""Planning an incremental commit read (no Spark)."""

import pytest
from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.commit_reads import ChangeRead, changed_keys_sql, image_value, plan_read

ACTIVE = ["20261122100000000", "20261122100500000", "20261122101000000"]


def test_first_run_reads_everything_up_to_the_latest_instant():
    read = plan_read("dwd.events", "latest_state", None, ACTIVE, "full", "dws")
    assert (read.begin, read.end, read.note) == (None, ACTIVE[-1], None)
    assert read.sql() == f"(select * from hudi_table_changes('dwd.events', 'latest_state', 'earliest', '{ACTIVE[-1]}'))"


def test_incremental_run_reads_after_the_consumed_instant():
    read = plan_read("dwd.events", "cdc", ACTIVE[0], ACTIVE, "full", "dws")
    assert (read.begin, read.end) == (ACTIVE[0], ACTIVE[-1])
    assert f"'cdc', '{ACTIVE[0]}', '{ACTIVE[-1]}'" in read.sql()


def test_nothing_new_is_an_empty_read():
    read = plan_read("dwd.events", "latest_state", ACTIVE[-1], ACTIVE, "full", "dws")
    assert read.is_empty and read.sql().endswith("where false)")


def test_upstream_without_commits_is_empty():
    read = plan_read("dwd.events", "latest_state", None, [], "full", "dws")
    assert read.is_empty and read.sql() == "(select * from dwd.events where false)"


def test_consumed_instant_gone_falls_back_to_a_full_read_with_a_note():
    read = plan_read("dwd.events", "latest_state", "20261122090000000", ACTIVE, "full", "dws")
    assert read.begin is None and read.end == ACTIVE[-1]
    assert "dws" in read.note and "20261122090000000" in read.note


def test_consumed_instant_gone_fails_when_asked():
    with pytest.raises(CompilationError) as excinfo:
        plan_read("dwd.events", "latest_state", "20261122090000000", ACTIVE, "fail", "dws")
    assert "--full-refresh" in str(excinfo.value)


@pytest.mark.parametrize("arg,value", [("mode", "snapshot"), ("on_gap", "skip")])
def test_bad_arguments_are_refused(arg, value):
    kwargs = {"mode": "latest_state", "on_gap": "full", arg: value}
    with pytest.raises(CompilationError) as excinfo:
        plan_read("dwd.events", kwargs["mode"], None, ACTIVE, kwargs["on_gap"], "dws")
    assert value in str(excinfo.value) and "dws" in str(excinfo.value)


def test_cdc_images_decode_dates_and_timestamps():
    assert image_value("c.before", "event_date", "date") == \
        "date_add(date'1970-01-01', cast(get_json_object(c.before, '$.event_date') as int))"
    assert image_value("c.after", "event_at", "timestamp").startswith("timestamp_micros(")
    assert image_value("c.after", "account_id", "bigint") == "cast(get_json_object(c.after, '$.account_id') as bigint)"


def test_changed_keys_use_both_images_incrementally_and_the_snapshot_in_full():
    types = {"event_date": "date", "account_id": "bigint"}
    incremental = changed_keys_sql(ChangeRead("dwd.events", "cdc", ACTIVE[0], ACTIVE[-1]),
                                   ["event_date", "account_id"], types)
    assert "c.before is not null" in incremental and "c.after is not null" in incremental
    full = changed_keys_sql(ChangeRead("dwd.events", "cdc", None, ACTIVE[-1]), ["account_id"], types)
    assert "'latest_state', 'earliest'" in full
    with pytest.raises(CompilationError):
        changed_keys_sql(ChangeRead("dwd.events", "cdc", None, ACTIVE[-1]), ["industry"], types)
