"""dbt-spark's `options` mapped onto the typed configs, and the hoodie.* keys the
typed configs own (no Spark: what the parsed config renders)."""

import pytest

from dbt.adapters.lakehouse.formats.hudi.settings.write_defaults import WRITE_DEFAULTS
from dbt.adapters.lakehouse.formats.hudi.table_config import HudiTableConfig, owned_keys
from dbt.adapters.lakehouse.relation_configs.cleaning import POLICIES
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.strategies import STRATEGIES

MODEL = "events"


def parse(**config):
    return HudiTableConfig.from_model_config(MODEL, config)


def error(**config):
    with pytest.raises(LakeConfigError) as excinfo:
        parse(**config)
    message = str(excinfo.value)
    assert f"Model '{MODEL}'" in message
    return message


def rendered(lake):
    """Everything a config makes the adapter send to Hudi."""
    return lake.table_options(), {s: lake.write_settings(s) for s in STRATEGIES}


# --- options as dbt-spark and Hudi's docs write them -------------------------


def test_hudi_docs_options_equal_the_typed_configs():
    from_options = parse(options={"type": "mor", "primaryKey": "id", "preCombineField": "ts"})
    typed = parse(table_type="mor", unique_key="id", precombine_key="ts")
    assert rendered(from_options) == rendered(typed)
    assert from_options.table_options()["type"] == "mor"
    assert from_options.precombine_key == "ts"


def test_ordering_fields_and_hoodie_names_map_too():
    lake = parse(
        options={
            "orderingFields": "ts",
            "hoodie.datasource.write.recordkey.field": "a,b",
            "hoodie.table.type": "MERGE_ON_READ",
        }
    )
    assert (lake.table_type, lake.record_key, lake.precombine_key) == ("mor", ("a", "b"), "ts")


def test_other_hudi_options_pass_through_to_the_table():
    lake = parse(
        unique_key="id",
        options={
            "hoodie.table.cdc.enabled": True,
            "payloadClass": "org.apache.hudi.common.model.DefaultHoodieRecordPayload",
        },
    )
    options = lake.table_options()
    assert options["hoodie.table.cdc.enabled"] == "true"
    assert options["payloadClass"] == "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
    # A hoodie.* option applies on every write, like hudi_options.
    assert lake.write_settings("upsert")["hoodie.table.cdc.enabled"] == "true"


def test_compaction_and_cleaning_keys_map_onto_their_configs():
    lake = parse(
        table_type="mor",
        options={
            "hoodie.compact.inline.max.delta.commits": 3,
            "hoodie.cleaner.fileversions.retained": 2,
        },
    )
    assert lake.compaction.delta_commits == 3
    assert (lake.cleaning.policy, lake.cleaning.retain) == ("keep_latest_file_versions", 2)


def test_compaction_keys_on_a_cow_table_are_refused_like_the_typed_config():
    assert "merge-on-read" in error(options={"hoodie.compact.inline.max.delta.commits": 3})


def test_cleaning_can_be_left_to_the_operation():
    settings = parse(options={"hoodie.clean.automatic": "false"}).table_properties()
    assert settings["hoodie.clean.automatic"] == "false"


@pytest.mark.parametrize(
    "options,config,fragments",
    [
        (
            {"primaryKey": "id"},
            {"unique_key": "event_id"},
            ["options.primaryKey", "'id'", "unique_key", "'event_id'"],
        ),
        ({"type": "mor"}, {"table_type": "cow"}, ["options.type", "'mor'", "table_type", "'cow'"]),
        (
            {"preCombineField": "ts"},
            {"precombine_key": "version"},
            ["options.preCombineField", "precombine_key"],
        ),
        (
            {"hoodie.compact.inline.max.delta.commits": "3"},
            {"table_type": "mor", "compaction": {"delta_commits": 5}},
            ["options.hoodie.compact.inline.max.delta.commits", "compaction.delta_commits", "5"],
        ),
        (
            {"hoodie.metadata.enable": "false"},
            {"hudi_options": {"hoodie.metadata.enable": True}},
            ["options.hoodie.metadata.enable", "hudi_options.hoodie.metadata.enable"],
        ),
    ],
)
def test_options_that_disagree_with_a_typed_config_name_both(options, config, fragments):
    message = error(options=options, **config)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from: {message}"


def test_options_that_agree_with_a_typed_config_are_fine():
    lake = parse(unique_key=["ID"], options={"primaryKey": "id", "type": "COW"})
    assert lake.record_key == ("ID",)


def test_a_common_misspelling_is_honoured_with_a_warning():
    lake = parse(unique_key="id", options={"precombineKey": "ts"})
    assert lake.precombine_key == "ts"
    assert len(lake.warnings) == 1
    assert "precombineKey" in lake.warnings[0] and "preCombineField" in lake.warnings[0]


def test_an_unknown_option_lists_the_accepted_keys():
    message = error(options={"recordkey_field": "id"})
    assert "recordkey_field" in message
    for accepted in ("type", "primaryKey", "preCombineField", "orderingFields", "hoodie.*"):
        assert accepted in message


def test_the_write_operation_is_not_an_option():
    assert "incremental_strategy" in error(
        options={"hoodie.datasource.write.operation": "bulk_insert"}
    )


def test_options_must_be_a_mapping():
    assert "mapping" in error(options="type=mor")


# --- the keys the typed configs own -------------------------------------------


def fully_configured():
    """Configs that make the typed settings emit every key they can."""
    layout = {"table_type": "mor", "unique_key": "id", "precombine_key": "ts", "partition_by": "d"}
    yield {
        **layout,
        "index": {"type": "bucket", "buckets": 8},
        "compaction": {"trigger": "num_or_time"},
    }
    for policy in POLICIES:
        yield {**layout, "index": {"type": "bloom"}, "cleaning": {"policy": policy, "retain": 7}}


def emitted_hoodie_settings():
    for config in fully_configured():
        lake = parse(**config)
        for strategy in STRATEGIES:
            for key, value in lake.write_settings(strategy).items():
                if key.startswith("hoodie."):
                    yield config, key, value


def test_every_emitted_key_is_owned_or_a_write_default():
    owned = owned_keys()
    assert {key for _, key, _ in emitted_hoodie_settings()} <= set(owned) | set(WRITE_DEFAULTS)
    assert not set(owned) & set(WRITE_DEFAULTS), "a write default must not be a typed config's key"


def test_every_write_default_is_overridden_by_hudi_options():
    for key in WRITE_DEFAULTS:
        lake = parse(unique_key="id", hudi_options={key: "other"})
        assert lake.table_options()[key] == lake.write_settings("upsert")[key] == "other"


def test_every_owned_key_is_refused_in_hudi_options_naming_its_config():
    for key, setting in owned_keys().items():
        message = error(unique_key="id", hudi_options={key: "1"})
        assert f"`{setting.config_for(key)}`" in message, message


def test_every_emitted_key_given_as_an_option_agrees_with_the_typed_config():
    """The same value through `options` changes nothing; a write operation is refused."""
    for config, key, value in emitted_hoodie_settings():
        if key in WRITE_DEFAULTS:
            continue
        if owned_keys()[key].CONFIG_KEY == "incremental_strategy":
            assert "incremental_strategy" in error(**config, options={key: value})
            continue
        assert rendered(parse(**config, options={key: value})) == rendered(parse(**config)), key


@pytest.mark.parametrize("config", [{"clustered_by": "id", "buckets": 4}, {"buckets": 4}])
def test_spark_bucketing_points_to_the_bucket_index(config):
    assert "index: {type: bucket" in error(unique_key="id", **config)
