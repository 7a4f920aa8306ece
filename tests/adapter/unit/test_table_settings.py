"""Index, compaction, cleaning and the settings that cannot change in place (no Spark)."""

import pytest

from dbt.adapters.lakehouse.relation_configs import HudiTableConfig, LakeConfigError

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
    table = dict(lake.table_properties(), **{"hoodie.cleaner.fileversions.retained": "3"})
    assert lake.changed_properties(table) == {"hoodie.cleaner.fileversions.retained": "2"}


def test_delete_condition_needs_a_keyed_strategy():
    lake = parse(unique_key="id", delete_condition="op = 'D'")
    lake.check_strategy("upsert")
    with pytest.raises(LakeConfigError) as excinfo:
        lake.check_strategy("append")
    assert "delete_condition" in str(excinfo.value)
