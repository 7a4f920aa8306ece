"""Index, compaction, cleaning, file sizing, the settings that cannot change in
place, and the protocol every setting follows (no Spark)."""

import pytest

from dbt.adapters.lakehouse.formats.hudi.settings.file_sizing import FileSizingConfig
from dbt.adapters.lakehouse.formats.hudi.table_config import COMPONENTS, HudiTableConfig
from dbt.adapters.lakehouse.relation_configs.base import Changeset, LiveTable
from dbt.adapters.lakehouse.relation_configs.compaction import CompactionConfig
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError

MODEL = "dws_account_daily_spend"


def parse(**config):
    return HudiTableConfig.from_model_config(MODEL, config)


def error(**config):
    with pytest.raises(LakeConfigError) as excinfo:
        parse(**config)
    message = str(excinfo.value)
    assert MODEL in message
    return message


# --- index --------------------------------------------------------------------


def test_bucket_index_sets_engine_and_count():
    props = parse(unique_key="id", index={"type": "bucket", "buckets": 8}).table_properties()
    assert props["hoodie.index.type"] == "BUCKET"
    assert props["hoodie.index.bucket.engine"] == "SIMPLE"
    assert props["hoodie.bucket.index.num.buckets"] == "8"


def test_bucket_index_defaults_to_four_buckets():
    assert parse(unique_key="id", index={"type": "bucket"}).index.buckets == 4


def test_bloom_index_takes_no_bucket_count():
    assert "index.buckets" in error(unique_key="id", index={"type": "bloom", "buckets": 2})


@pytest.mark.parametrize(
    "index,fragment",
    [
        ({"type": "hash"}, "bloom, simple, bucket"),
        ({"kind": "bucket"}, "index.kind"),
        ({"type": "bucket", "buckets": 0}, "at least 1"),
        ("bucket", "Expected a mapping"),
    ],
)
def test_bad_index_is_refused(index, fragment):
    assert fragment in error(unique_key="id", index=index)


def test_index_needs_a_record_key():
    assert "unique_key" in error(index={"type": "simple"})


# --- compaction ---------------------------------------------------------------


@pytest.mark.parametrize("trigger", ["num_commits", "time_elapsed", "num_and_time", "num_or_time"])
def test_compaction_trigger_maps_to_hudi_strategy(trigger):
    lake = parse(
        table_type="mor", compaction={"trigger": trigger, "delta_commits": 3, "delta_seconds": 60}
    )
    props = lake.table_properties()
    assert props["hoodie.compact.inline.trigger.strategy"] == trigger.upper()
    assert props["hoodie.compact.inline.max.delta.commits"] == "3"
    assert props["hoodie.compact.inline.max.delta.seconds"] == "60"


@pytest.mark.parametrize(
    "mode,inline,schedule",
    [
        ("inline", "true", "false"),
        ("schedule", "false", "true"),
        ("off", "false", "false"),
    ],
)
def test_compaction_mode(mode, inline, schedule):
    props = parse(table_type="mor", compaction={"mode": mode}).table_properties()
    assert (props["hoodie.compact.inline"], props["hoodie.compact.schedule.inline"]) == (
        inline,
        schedule,
    )


def test_compaction_on_cow_is_refused():
    message = error(table_type="cow", compaction={"trigger": "num_commits"})
    assert "compaction" in message and "table_type: mor" in message


def test_cow_tables_carry_no_compaction_settings():
    assert not any(k.startswith("hoodie.compact") for k in parse().table_properties())


@pytest.mark.parametrize(
    "compaction,fragment",
    [
        ({"trigger": "num_commit"}, "num_commits, time_elapsed"),
        ({"delta_commits": "3"}, "whole number"),
        ({"every": 3}, "compaction.every"),
        ({"mode": "async"}, "inline, schedule, off"),
    ],
)
def test_bad_compaction_is_refused(compaction, fragment):
    assert fragment in error(table_type="mor", compaction=compaction)


# --- cleaning -----------------------------------------------------------------


@pytest.mark.parametrize(
    "policy,key,default",
    [
        ("keep_latest_commits", "hoodie.cleaner.commits.retained", "10"),
        ("keep_latest_file_versions", "hoodie.cleaner.fileversions.retained", "3"),
        ("keep_latest_by_hours", "hoodie.cleaner.hours.retained", "24"),
    ],
)
def test_cleaning_policy_sets_its_retain_key(policy, key, default):
    props = parse(cleaning={"policy": policy}).table_properties()
    assert props["hoodie.cleaner.policy"] == policy.upper()
    assert props[key] == default
    assert parse(cleaning={"policy": policy, "retain": 2}).table_properties()[key] == "2"


def test_bad_cleaning_policy_is_refused():
    assert "keep_latest_commits" in error(cleaning={"policy": "keep_last"})


# --- hudi_options -------------------------------------------------------------


@pytest.mark.parametrize(
    "key,owner",
    [
        ("hoodie.cleaner.policy", "cleaning"),
        ("hoodie.compact.inline", "compaction"),
        ("hoodie.bucket.index.num.buckets", "index"),
        ("hoodie.table.recordkey.fields", "unique_key"),
        ("hoodie.datasource.write.precombine.field", "precombine_key"),
    ],
)
def test_hudi_options_cannot_bypass_typed_configs(key, owner):
    assert f"`{owner}`" in error(hudi_options={key: "x"})


# --- what cannot change in place ---------------------------------------------

TABLE = {"type": "mor", "primaryKey": "event_date,account_id", "orderingFields": "updated_at"}


def test_unchanged_layout_passes():
    lake = parse(
        table_type="mor",
        unique_key=["event_date", "account_id"],
        precombine_key="updated_at",
        partition_by="event_date",
    )
    lake.check_against_table(TABLE, ["event_date"])


@pytest.mark.parametrize(
    "change,key",
    [
        ({"table_type": "cow"}, "table_type"),
        ({"unique_key": "account_id"}, "unique_key"),
        ({"precombine_key": "version"}, "precombine_key"),
        ({"partition_by": None}, "partition_by"),
    ],
)
def test_changed_layout_asks_for_full_refresh(change, key):
    config = dict(
        table_type="mor",
        unique_key=["event_date", "account_id"],
        precombine_key="updated_at",
        partition_by="event_date",
    )
    config.update(change)
    with pytest.raises(LakeConfigError) as excinfo:
        parse(**config).check_against_table(TABLE, ["event_date"])
    message = str(excinfo.value)
    assert key in message and "--full-refresh" in message and MODEL in message


def test_changed_bucket_count_asks_for_full_refresh():
    lake = parse(unique_key="id", index={"type": "bucket", "buckets": 8})
    with pytest.raises(LakeConfigError) as excinfo:
        lake.check_against_table(
            {
                "type": "cow",
                "primaryKey": "id",
                "hoodie.index.type": "BUCKET",
                "hoodie.bucket.index.num.buckets": "4",
            },
            [],
        )
    assert "index" in str(excinfo.value) and "--full-refresh" in str(excinfo.value)


def test_bucket_index_on_a_table_written_without_one_asks_for_full_refresh():
    # A table built with Hudi's default index records no index type; its file
    # groups are not laid out by hash, so a bucket index cannot take them over.
    lake = parse(table_type="mor", unique_key="id", index={"type": "bucket", "buckets": 4})
    with pytest.raises(LakeConfigError) as excinfo:
        lake.check_against_table({"type": "mor", "primaryKey": "id"}, [])
    message = str(excinfo.value)
    assert (
        "index" in message
        and "BUCKET" in message
        and "--full-refresh" in message
        and MODEL in message
    )


def test_an_unnamed_index_keeps_the_tables_own():
    parse(unique_key="id").check_against_table(
        {
            "type": "cow",
            "primaryKey": "id",
            "hoodie.index.type": "BUCKET",
            "hoodie.bucket.index.num.buckets": "4",
        },
        [],
    )


def test_changed_cleaning_is_an_in_place_property_update():
    lake = parse(table_type="mor", cleaning={"policy": "keep_latest_file_versions", "retain": 2})
    # The table as CREATE TABLE recorded it (its options are its properties).
    table = dict(lake.table_options(), **{"hoodie.cleaner.fileversions.retained": "3"})
    assert lake.changed_properties(table) == {"hoodie.cleaner.fileversions.retained": "2"}
    changes = lake.changes(table, [])
    assert dict(changes.alter) == {"hoodie.cleaner.fileversions.retained": "2"}
    assert not changes.requires_full_refresh


def test_delete_condition_needs_a_keyed_strategy():
    lake = parse(unique_key="id", delete_condition="op = 'D'")
    lake.check_strategy("upsert")
    with pytest.raises(LakeConfigError) as excinfo:
        lake.check_strategy("append")
    assert "delete_condition" in str(excinfo.value)


# --- one protocol for every setting -------------------------------------------


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.__name__)
def test_each_setting_reads_back_from_the_table_it_created(component):
    """The table a model creates, read back, diffs to nothing: no alter, no rebuild."""
    lake = parse(
        table_type="mor",
        unique_key="id",
        partition_by="day",
        index={"type": "bucket", "buckets": 8},
        compaction={"delta_commits": 3},
        cleaning={"policy": "keep_latest_commits", "retain": 4},
        file_sizing={"max_file_mb": 64, "small_file_mb": 0},
    )
    table = LiveTable(lake.table_options(), ("day",))
    mine = lake.component(component)
    assert component.from_table(table) == mine
    assert mine.diff(component.from_table(table)) == Changeset()
    assert lake.changes(table.properties, ["day"]) == Changeset()


def test_a_table_that_records_a_setting_only_in_part_gets_all_of_it():
    lake = parse(table_type="mor", compaction={"delta_commits": 3})
    table = dict(lake.table_options())
    del table["hoodie.compact.inline.max.delta.seconds"]
    # Read back with a default in place of the missing key, it would hide it.
    assert CompactionConfig.from_table(LiveTable(table)) is None
    assert dict(lake.changes(table).alter) == lake.compaction.hoodie_settings()


def test_a_changeset_says_whether_a_full_refresh_is_needed():
    lake = parse(table_type="mor", unique_key="id", cleaning={"retain": 2})
    table = {**lake.table_options(), "type": "cow", "hoodie.cleaner.commits.retained": "10"}
    changes = lake.changes(table, [])
    assert changes.requires_full_refresh
    assert changes.rebuild == (("table_type", "cow", "mor"),)
    assert dict(changes.alter)["hoodie.cleaner.commits.retained"] == "2"
    with pytest.raises(LakeConfigError, match="--full-refresh --select " + MODEL):
        changes.refuse_rebuild(MODEL)


def test_file_sizing_sets_hudis_sizes_in_bytes_and_changes_in_place():
    lake = parse(file_sizing={"max_file_mb": 256, "small_file_mb": 0})
    assert lake.component(FileSizingConfig).hoodie_settings() == {
        "hoodie.parquet.max.file.size": str(256 * 1024 * 1024),
        "hoodie.parquet.small.file.limit": "0",
    }
    table = {**lake.table_options(), "hoodie.parquet.small.file.limit": str(100 * 1024 * 1024)}
    changes = lake.changes(table, [])
    assert dict(changes.alter) == {"hoodie.parquet.small.file.limit": "0"}
    assert not changes.requires_full_refresh


@pytest.mark.parametrize(
    "file_sizing, fragment",
    [
        ({"max_file_mb": 0}, "at least 1"),
        ({"small_file_mb": -1}, "at least 0"),
        ({"max_file_mb": 64, "small_file_mb": 64}, "under max_file_mb"),
        ({"max_mb": 64}, "file_sizing.max_mb"),
    ],
)
def test_bad_file_sizing_is_refused(file_sizing, fragment):
    with pytest.raises(LakeConfigError, match=fragment):
        parse(file_sizing=file_sizing)


def test_file_sizing_from_dbt_spark_options_in_whole_megabytes():
    lake = parse(options={"hoodie.parquet.small.file.limit": "0"})
    assert lake.component(FileSizingConfig) == FileSizingConfig(None, 0)
    with pytest.raises(LakeConfigError, match="whole megabytes"):
        parse(options={"hoodie.parquet.max.file.size": "1000"})
