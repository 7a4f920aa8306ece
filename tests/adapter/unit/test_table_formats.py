"""Table formats besides Hudi: which configs each takes (config_support), what
an Iceberg or a Delta model's configs become (iceberg_table, delta_table),
which formats a session loads (table_formats) and how a table of another
catalog is named (relation).
The SQL they drive runs in tests/adapter/functional/formats/."""

from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats import config_support, merge_commits
from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.delta import services as delta_services
from dbt.adapters.lakehouse.formats.delta.format import DELTA
from dbt.adapters.lakehouse.formats.delta.table_config import DeltaTableConfig
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.formats.iceberg import services as iceberg_services
from dbt.adapters.lakehouse.formats.iceberg.format import ICEBERG
from dbt.adapters.lakehouse.formats.iceberg.table_config import IcebergTableConfig
from dbt.adapters.lakehouse.relation import LakehouseRelation
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.session import format_jars
from dbt.adapters.lakehouse.storage import locations as storage

README = Path(config_support.__file__).resolve().parents[4] / "README.md"


def iceberg(**config) -> IcebergTableConfig:
    return IcebergTableConfig.from_model_config("m", config)


# --- which config on which format -----------------------------------------------


def test_the_readme_shows_which_readers_outside_spark_read_each_format():
    assert table_formats.readers_table() in README.read_text(), (
        "Paste registry.readers_table() into adapter/README.md's Table formats:\n"
        + table_formats.readers_table()
    )


def test_the_readme_shows_the_table_the_validation_reads():
    assert config_support.markdown_table() in README.read_text(), (
        "Paste config_support.markdown_table() into adapter/README.md's table of "
        "configs by format:\n" + config_support.markdown_table()
    )


@pytest.mark.parametrize(
    "key, value, advice",
    [
        ("hudi_options", {"hoodie.x": "1"}, "tblproperties"),
        ("file_sizing", {"max_file_mb": 64}, "write.target-file-size-bytes"),
        ("clustered_by", "id", "index: {type: bucket"),
        ("location_root", "/x", "iceberg/"),
        ("options", {"type": "mor"}, "typed configs"),
    ],
)
def test_a_config_that_means_nothing_on_iceberg_names_model_key_format_and_advice(
    key, value, advice
):
    with pytest.raises(LakeConfigError) as raised:
        iceberg(**{key: value})
    message = str(raised.value)
    assert "Model 'm'" in message and f"'{key}'" in message
    assert "file_format 'iceberg'" in message and advice in message


@pytest.mark.parametrize(
    "key, value, advice",
    [
        ("index", {"type": "bucket", "buckets": 4}, "partition_by"),
        ("hudi_options", {"hoodie.x": "1"}, "tblproperties"),
        ("file_sizing", {"max_file_mb": 64}, "delta.targetFileSize"),
        ("buckets", 4, "partition_by"),
    ],
)
def test_a_config_delta_does_not_take_names_model_key_format_and_advice(key, value, advice):
    with pytest.raises(LakeConfigError) as raised:
        DeltaTableConfig.from_model_config("m", {"unique_key": "id", key: value})
    message = str(raised.value)
    assert "Model 'm'" in message and f"'{key}'" in message
    assert "file_format 'delta'" in message and advice in message


def test_table_type_turns_deletion_vectors_on_or_off_and_every_delta_table_feeds_changes():
    mor = DeltaTableConfig.from_model_config(
        "m", {"table_type": "mor", "unique_key": "id", "precombine_key": "ts"}
    )
    assert mor.table_properties() == {
        "delta.enableDeletionVectors": "true",
        "delta.enableChangeDataFeed": "true",
        "lakehouse.unique_key": "id",
        "lakehouse.precombine_key": "ts",
    }
    cow = DeltaTableConfig.from_model_config("m", {"tblproperties": {"delta.appendOnly": False}})
    assert cow.table_properties() == {
        "delta.enableDeletionVectors": "false",
        "delta.enableChangeDataFeed": "true",
        "delta.appendOnly": "false",
    }
    assert cow.resolve_strategy("microbatch") == "microbatch"
    assert cow.resolve_strategy("merge") == "append"


def test_every_config_of_the_table_is_one_the_readme_documents():
    from tests.adapter.unit.test_config_reference import documented, section

    known = documented(section("Model configs")) | documented(
        section("dbt-spark's configs on Hudi")
    )
    assert {s.key for s in config_support.configs()} <= known


def test_iceberg_runs_every_strategy_with_hudis_key_rules():
    assert iceberg().resolve_strategy("microbatch") == "microbatch"
    assert iceberg(unique_key="id").resolve_strategy("microbatch") == "microbatch"
    assert iceberg().resolve_strategy("merge") == "append"  # dbt-spark's merge without a key
    assert iceberg(unique_key="id").resolve_strategy("merge") == "merge"
    with pytest.raises(LakeConfigError, match="needs a unique_key"):
        iceberg().resolve_strategy("upsert")
    with pytest.raises(LakeConfigError, match="Deletes need a unique_key"):
        iceberg(unique_key="id", delete_condition="op = 'D'").resolve_strategy("append")


# --- an Iceberg table's settings ------------------------------------------------------


def test_table_type_picks_iceberg_row_level_modes_and_the_keys_are_kept_as_properties():
    cow = iceberg(unique_key=["a", "b"], precombine_key="ts").table_properties()
    assert cow["write.merge.mode"] == cow["write.update.mode"] == "copy-on-write"
    assert cow["lakehouse.unique_key"] == "a,b" and cow["lakehouse.precombine_key"] == "ts"
    mor = iceberg(table_type="mor", tblproperties={"write.target-file-size-bytes": 1024})
    props = mor.table_properties()
    assert props["write.delete.mode"] == "merge-on-read" and props["format-version"] == "2"
    assert props["write.target-file-size-bytes"] == "1024"


def test_a_bucket_index_is_a_bucket_partition_field_of_the_key():
    config = iceberg(unique_key="id", partition_by="day", index={"type": "bucket", "buckets": 8})
    assert config.partition_fields() == ["day", "bucket(8, id)"]
    with pytest.raises(LakeConfigError, match="only .type: bucket"):
        iceberg(unique_key="id", index={"type": "bloom"})
    with pytest.raises(LakeConfigError, match="set unique_key too"):
        iceberg(index={"type": "bucket", "buckets": 8})


def test_changes_alter_properties_and_refuse_a_new_key_or_partitioning():
    config = iceberg(unique_key="id", table_type="mor", index={"type": "bucket", "buckets": 4})
    stored = {**iceberg(unique_key="id").table_properties(), "current-snapshot-id": "1"}
    # Spark's DESCRIBE writes the transform with a space; cow -> mor is a property change.
    changed = config.changes(stored, ["bucket(4, id)"])
    assert changed == {
        m: "merge-on-read" for m in ("write.update.mode", "write.delete.mode", "write.merge.mode")
    }
    with pytest.raises(LakeConfigError, match="--full-refresh"):
        iceberg(unique_key="other").changes(stored, [])
    with pytest.raises(LakeConfigError, match="built with partition_by"):
        config.changes(stored, ["day"])


def test_compaction_and_cleaning_take_hudi_values_and_refuse_what_iceberg_cannot_do():
    with pytest.raises(LakeConfigError, match="merge-on-read tables only"):
        iceberg(compaction={"delta_commits": 2})
    with pytest.raises(LakeConfigError, match="not file versions"):
        iceberg(cleaning={"policy": "keep_latest_file_versions"})
    with pytest.raises(LakeConfigError, match="compaction.trigger"):
        iceberg(table_type="mor", compaction={"trigger": "sometimes"})


def at(minute: int, operation: str = "overwrite") -> iceberg_services.Snapshot:
    return iceberg_services.Snapshot(datetime(2026, 1, 1, 0, minute), operation)


def test_compaction_is_due_by_the_snapshots_since_the_last_rewrite():
    lake = iceberg(table_type="mor", compaction={"delta_commits": 2})
    now = datetime(2026, 1, 1, 1, 0)
    due = iceberg_services.compaction_due
    assert not due(lake, [at(0)], now)
    assert due(lake, [at(0), at(1)], now)
    assert not due(lake, [at(0), at(1), at(2, "replace"), at(3)], now)
    timed = iceberg(table_type="mor", compaction={"trigger": "time_elapsed", "delta_seconds": 600})
    assert due(timed, [at(0, "replace"), at(50)], now)  # an hour since the rewrite
    assert not due(timed, [at(55, "replace"), at(56)], now)
    assert not due(timed, [at(0, "replace")], now)  # nothing written since
    assert not due(iceberg(), [at(0), at(1), at(2), at(3), at(4), at(5)], now)  # cow


def test_cleaning_keeps_the_latest_snapshots_or_hours():
    now = datetime(2026, 1, 1, 1, 0)
    history = [at(m) for m in range(12)]
    assert iceberg_services.expire_before(iceberg(), history, now) == (now, 10)
    assert iceberg_services.expire_before(iceberg(), history[:10], now) is None
    hours = iceberg(cleaning={"policy": "keep_latest_by_hours", "retain": 2})
    assert iceberg_services.expire_before(hours, history, now) is None  # all within 2 hours
    older = iceberg_services.expire_before(hours, history, datetime(2026, 1, 1, 2, 5))
    assert older == (datetime(2026, 1, 1, 0, 5), 1)


def test_delta_compacts_by_versions_since_optimize_and_vacuums_by_the_oldest_version_kept():
    lake = DeltaTableConfig.from_model_config(
        "m", {"table_type": "mor", "compaction": {"delta_commits": 2}, "cleaning": {"retain": 2}}
    )
    now = datetime(2026, 1, 1, 1, 0)
    due = merge_commits.compaction_due
    rewrites = delta_services.REWRITES
    assert due(lake, [at(0, "WRITE"), at(1, "MERGE")], now, rewrites)
    assert not due(lake, [at(0), at(1), at(2, "OPTIMIZE"), at(3, "REORG"), at(4)], now, rewrites)
    # Versions at minutes 0..3: the two kept are 2 and 3, so files removed
    # before minute 2 go: 58 minutes (and the clock margin), in hours.
    versions = [at(m) for m in range(4)]
    assert delta_services.vacuum_hours(lake, versions, now) == 0.97
    assert delta_services.vacuum_hours(lake, versions[:2], now) is None
    by_hours = DeltaTableConfig.from_model_config(
        "m", {"cleaning": {"policy": "keep_latest_by_hours", "retain": 2}}
    )
    assert delta_services.vacuum_hours(by_hours, versions, now) is None
    assert delta_services.vacuum_hours(by_hours, versions, datetime(2026, 1, 1, 2, 5)) == 2.0
    for materialized in ("incremental", "table"):
        assert DeltaTableConfig.from_model_config(
            "m", {"materialized": materialized, "skip_unchanged": True}
        )
    with pytest.raises(LakeConfigError, match="Delta keeps the files of whole versions"):
        DeltaTableConfig.from_model_config(
            "m", {"cleaning": {"policy": "keep_latest_file_versions", "retain": 2}}
        )


# --- which formats a session loads ----------------------------------------------------


def node(file_format=None):
    return SimpleNamespace(config={"file_format": file_format} if file_format else {})


def test_a_session_loads_hudi_and_the_formats_the_project_uses():
    assert table_formats.of_nodes([node(), node("iceberg"), node("parquet")]) == {"iceberg"}
    assert table_formats.decode(None) == ["hudi"]
    assert table_formats.encode(["iceberg"]) == "hudi,iceberg"
    with pytest.raises(DbtRuntimeError, match="the profile's table_formats names the table format"):
        table_formats.check_names(["delta-lake"], "the profile's table_formats")


def test_only_a_project_with_iceberg_gets_its_jar_catalog_and_extension():
    assert format_jars.wanted(["hudi"]) == {}
    assert table_formats.session_conf(["hudi"], "/lake/warehouse") == {}
    [jar] = format_jars.wanted(["hudi", "iceberg"]).values()
    bundle = hudi_bundle.installed_bundle()
    assert jar.artifact_id == f"iceberg-spark-runtime-{bundle.spark}_{bundle.scala}"
    conf = table_formats.session_conf(["hudi", "iceberg"], "s3a://bucket/warehouse/")
    assert conf["spark.sql.catalog.iceberg.warehouse"] == "s3a://bucket/warehouse/iceberg"
    # Iceberg's tables are named in the session catalog, which points at Iceberg's own.
    assert conf["spark.sql.catalog.spark_catalog"] == table_formats.LAKE_SESSION_CATALOG
    assert conf["spark.sql.catalog.spark_catalog.iceberg-catalog"] == "iceberg"
    assert "spark.sql.catalog.spark_catalog.delta" not in conf
    assert table_formats.extensions(["hudi", "iceberg"]) == [ICEBERG.sql_extension]


def test_delta_gets_its_jars_its_extension_and_the_session_catalog_of_the_formats():
    jars = format_jars.wanted(["hudi", "delta"])
    bundle = hudi_bundle.installed_bundle()
    assert sorted(j.coordinates for j in jars.values()) == [
        f"io.delta:delta-spark_{bundle.scala}:3.3.3",
        "io.delta:delta-storage:3.3.3",
    ]
    conf = table_formats.session_conf(["hudi", "delta"], "/lake/warehouse")
    # Delta's tables are in the session catalog, beside Hudi's: one catalog chains both.
    assert conf["spark.sql.catalog.spark_catalog"] == table_formats.LAKE_SESSION_CATALOG
    assert conf["spark.sql.catalog.spark_catalog.delta"] == "true"
    assert "spark.sql.catalog.spark_catalog.iceberg-catalog" not in conf
    # (VACUUM keeps what the model's cleaning says, under Delta's 7 days too.)
    assert conf["spark.databricks.delta.retentionDurationCheck.enabled"] == "false"
    # A local session gets small-machine settings; a cluster keeps Delta's.
    assert conf["spark.databricks.delta.snapshotPartitions"] == "2"
    cluster = table_formats.session_conf(["delta"], "/w", "spark://127.0.0.1:7077")
    assert "spark.databricks.delta.snapshotPartitions" not in cluster
    assert table_formats.extensions(["delta", "iceberg", "hudi"]) == [
        DELTA.sql_extension,
        ICEBERG.sql_extension,
    ]
    assert table_formats.started_with(None, f"x,{DELTA.sql_extension}") == [
        "hudi",
        "delta",
    ]


def test_a_session_started_without_a_format_says_how_to_get_it():
    assert table_formats.started_with(None, f"x,{ICEBERG.sql_extension}") == [
        "hudi",
        "iceberg",
    ]
    table_formats.check_started_with(["hudi", "iceberg"], ["iceberg"])
    with pytest.raises(DbtRuntimeError, match="started without iceberg.*table_formats"):
        table_formats.check_started_with(table_formats.started_with("hudi", None), ["iceberg"])


def test_profile_table_formats_become_the_session_setting():
    from dbt.adapters.lakehouse.credentials import LakehouseCredentials

    creds = LakehouseCredentials(method="session", schema="s", table_formats=["Iceberg"])
    assert creds.spark_conf[table_formats.FORMATS_CONF] == "hudi,iceberg"
    creds = LakehouseCredentials(method="session", schema="s", table_formats=["delta", "iceberg"])
    assert creds.spark_conf[table_formats.FORMATS_CONF] == "hudi,iceberg,delta"
    with pytest.raises(DbtRuntimeError, match="paimon"):
        LakehouseCredentials(method="session", schema="s", table_formats=["paimon"])


# --- naming a table of another catalog ---------------------------------------------


def test_a_relation_of_another_catalog_names_it_and_the_session_catalog_stays_implicit():
    assert str(LakehouseRelation.create(database="iceberg", schema="s", identifier="t")) == (
        "iceberg.s.t"
    )
    assert str(LakehouseRelation.create(schema="s", identifier="t")) == "s.t"
    assert str(LakehouseRelation.create(database="", schema="s", identifier="t")) == "s.t"


def test_a_server_without_a_format_is_named_with_how_to_start_it():
    served = table_formats.started_with(
        None, "org.apache.spark.sql.hudi.HoodieSparkSessionExtension"
    )
    assert served == ["hudi"]
    table_formats.check_served(served, "hudi", "thrift")
    with pytest.raises(DbtRuntimeError) as failed:
        table_formats.check_served(served, "iceberg", "connect")
    message = str(failed.value)
    assert "The Spark connect server of this target holds hudi, not iceberg" in message
    assert "start connect --table-formats hudi,iceberg" in message
    assert "IcebergSparkSessionExtensions" in message and "spark.sql.catalog.iceberg=" in message
    both = table_formats.started_with("hudi,iceberg", None)
    table_formats.check_served(both, "iceberg", "thrift")


@pytest.mark.parametrize(
    "location, wanted, same",
    [
        ("file:/lake/ext/t", "/lake/ext/t", True),
        ("file:///lake/ext/t/", "/lake/ext//t", True),
        ("file:/lake/ext/t", "/lake/other/t", False),
        ("s3a://bucket/ext/t", "s3a://bucket/ext/t/", True),
        ("s3a://bucket/ext/t", "s3a://bucket/ext/u", False),
    ],
)
def test_a_tables_location_is_compared_to_its_location_root_as_a_folder(location, wanted, same):
    assert storage.same_folder(location, wanted) is same
