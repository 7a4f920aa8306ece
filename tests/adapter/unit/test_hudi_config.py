"""Parsing and validation of the lake-format configs (pure Python, no Spark)."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from dbt.adapters.lakehouse.formats.hudi.settings.write_defaults import WRITE_DEFAULTS, for_target
from dbt.adapters.lakehouse.formats.hudi.table_config import HudiTableConfig
from dbt.adapters.lakehouse.relation_configs import strategies
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError


def parse(**config):
    return HudiTableConfig.from_model_config("dwd_billing_events", config)


def test_defaults_are_a_keyless_cow_table():
    lake = parse()
    assert lake.table_type == "cow"
    assert lake.record_key == ()
    assert lake.precombine_key is None
    assert lake.table_options() == {"type": "cow", **WRITE_DEFAULTS}


def test_keys_map_to_hudi_table_options():
    lake = parse(
        table_type="MOR",
        unique_key=["account_id", "event_id"],
        precombine_key="event_version",
        partition_by="event_date",
        hudi_options={"hoodie.metadata.enable": True, "hoodie.parquet.block.size": 64},
    )
    assert lake.table_options() == {
        **WRITE_DEFAULTS,
        "type": "mor",
        "primaryKey": "account_id,event_id",
        "orderingFields": "event_version",
        # hudi_options override the adapter's write defaults.
        "hoodie.metadata.enable": "true",
        "hoodie.parquet.block.size": "64",
        # A MOR table compacts inline after 5 delta commits unless told otherwise.
        "hoodie.compact.inline": "true",
        "hoodie.compact.schedule.inline": "false",
        "hoodie.compact.inline.trigger.strategy": "NUM_COMMITS",
        "hoodie.compact.inline.max.delta.commits": "5",
        "hoodie.compact.inline.max.delta.seconds": "3600",
    }
    assert lake.partition_by == ("event_date",)


def test_a_targets_settings_beat_the_write_defaults_and_a_models_beat_both():
    target = {
        "hoodie.metadata.enable": "true",
        "hoodie.write.markers.type": "TIMELINE_SERVER_BASED",
        # Not a write default: the connection's baseline, not the table's.
        "hoodie.write.lock.provider": "some.Provider",
    }
    defaults = for_target(target)
    assert defaults == {
        **WRITE_DEFAULTS,
        "hoodie.metadata.enable": "true",
        "hoodie.write.markers.type": "TIMELINE_SERVER_BASED",
    }
    lake = HudiTableConfig.from_model_config(
        "dwd_billing_events",
        {"unique_key": "id", "hudi_options": {"hoodie.metadata.enable": False}},
        defaults,
    )
    settings = lake.write_settings("merge")
    assert settings["hoodie.metadata.enable"] == "false"  # the model's own
    assert settings["hoodie.write.markers.type"] == "TIMELINE_SERVER_BASED"  # the target's
    assert "hoodie.write.lock.provider" not in lake.table_properties()
    # A table created under the adapter's defaults is altered to the target's.
    assert lake.changed_properties(WRITE_DEFAULTS) == {
        "hoodie.write.markers.type": "TIMELINE_SERVER_BASED"
    }


def test_comma_separated_unique_key_is_split():
    assert parse(unique_key="a, b").record_key == ("a", "b")


@pytest.mark.parametrize(
    "strategy,operation",
    [
        ("append", "insert"),
        ("upsert", "upsert"),
        ("merge", "upsert"),
        ("insert_overwrite", "insert_overwrite"),
    ],
)
def test_each_strategy_sets_its_write_operation(strategy, operation):
    settings = parse(unique_key="id", hudi_options={"hoodie.x": 1}).write_settings(strategy)
    assert settings["hoodie.spark.sql.insert.into.operation"] == operation
    assert settings["hoodie.x"] == "1"


@pytest.mark.parametrize("unique_key", [None, "id"])
def test_a_first_load_is_a_bulk_insert_keeping_one_row_per_key(unique_key):
    lake = parse(unique_key=unique_key)
    settings = lake.write_settings(lake.default_strategy, first_load=True)
    assert settings["hoodie.spark.sql.insert.into.operation"] == "bulk_insert"
    assert settings.get("hoodie.combine.before.insert") == ("true" if unique_key else None)
    later = lake.write_settings(lake.default_strategy)["hoodie.spark.sql.insert.into.operation"]
    assert later in ("insert", "upsert")


def test_a_first_load_with_a_key_of_several_columns_upserts():
    """Hudi 1.2's bulk insert refuses a null in any column of such a key,
    which its upsert stores (dbt's BaseIncrementalUniqueKey, three columns)."""
    lake = parse(unique_key=["state", "county", "city"])
    settings = lake.write_settings(lake.default_strategy, first_load=True)
    assert settings["hoodie.spark.sql.insert.into.operation"] == "upsert"


def assert_error(excinfo, *fragments):
    message = str(excinfo.value)
    assert "dwd_billing_events" in message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_unknown_table_type_names_model_key_value_and_allowed():
    with pytest.raises(LakeConfigError) as excinfo:
        parse(table_type="merge_on_read")
    assert_error(excinfo, "table_type", "merge_on_read", "cow, mor")


def test_hudi_options_only_pass_hoodie_keys():
    # Hudi silently ignores unknown option names such as precombineKey.
    with pytest.raises(LakeConfigError) as excinfo:
        parse(hudi_options={"precombineKey": "ts"})
    assert_error(excinfo, "hudi_options", "precombineKey", "hoodie.*")


def test_hudi_options_must_be_a_mapping():
    with pytest.raises(LakeConfigError) as excinfo:
        parse(hudi_options=["hoodie.a"])
    assert_error(excinfo, "hudi_options")


@pytest.mark.parametrize("value", [3, ["a", ""], [1]])
def test_unique_key_must_be_column_names(value):
    with pytest.raises(LakeConfigError) as excinfo:
        parse(unique_key=value)
    assert_error(excinfo, "unique_key")


def test_precombine_key_must_be_one_column():
    with pytest.raises(LakeConfigError) as excinfo:
        parse(precombine_key=["a", "b"])
    assert_error(excinfo, "precombine_key")


def test_upsert_needs_a_unique_key():
    with pytest.raises(LakeConfigError) as excinfo:
        parse().check_strategy("upsert")
    assert_error(excinfo, "unique_key", "upsert")


@pytest.mark.parametrize("no_key", [None, "", []])
def test_a_merge_without_a_unique_key_appends_as_dbt_spark_does(no_key):
    assert parse(unique_key=no_key).resolve_strategy("merge") == "append"
    assert parse(unique_key="id").resolve_strategy("merge") == "merge"


def test_append_needs_no_unique_key():
    parse().check_strategy("append")


def test_key_columns_must_be_in_the_model_output():
    lake = parse(unique_key="event_id", precombine_key="event_version", partition_by="event_date")
    lake.check_columns(["EVENT_ID", "event_version", "event_date", "cost_micros"])
    with pytest.raises(LakeConfigError) as excinfo:
        lake.check_columns(["event_id", "event_date"])
    assert_error(excinfo, "precombine_key", "event_version", "event_date, event_id")


def test_a_new_tables_columns_are_the_models_with_the_partition_columns_last():
    """The first write's INSERT is by position, in this order (Hudi's CREATE
    moves partition columns last; test_table_rebuilds.py writes such a table)."""
    lake = parse(unique_key="id", partition_by=["Day", "region"])
    columns = [SimpleNamespace(name=n) for n in ("id", "day", "amount", "region", "note")]
    assert [c.name for c in lake.created_columns(columns)] == [
        "id",
        "amount",
        "note",
        "day",
        "region",
    ]
    assert parse().created_columns(columns) == columns


def test_the_docs_strategy_table_is_the_adapters():
    """adapter/README.md shows the strategy table the validation and macros read."""
    # adapter/dbt/adapters/lakehouse/relation_configs/strategies.py -> adapter/README.md
    readme = (Path(strategies.__file__).resolve().parents[4] / "README.md").read_text()
    assert strategies.markdown_table() in readme, (
        "Paste strategies.markdown_table() into adapter/README.md's strategy table:\n"
        + strategies.markdown_table()
    )
