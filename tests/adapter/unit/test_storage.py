"""The warehouse location of the embedded session (storage.py): a local folder
or a Hadoop URI, the connector jars each needs (connector_jars.py), and the errors for locations
that cannot work (no Spark is started; no jar is fetched)."""

from pathlib import Path

import pytest
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import connector_jars, storage
from dbt.adapters.lakehouse.credentials import LakehouseCredentials


def session(**fields) -> LakehouseCredentials:
    return LakehouseCredentials.from_dict({"method": "session", "schema": "s", **fields})


def test_the_warehouse_is_in_the_lake_folder_unless_the_profile_says_where():
    assert "spark.sql.warehouse.dir" not in session().spark_conf
    creds = session(lake_dir="/tmp/lake", warehouse_dir="s3a://bucket/prefix/")
    assert creds.spark_conf["spark.sql.warehouse.dir"] == "s3a://bucket/prefix"
    local = session(warehouse_dir="~/tables")
    assert local.spark_conf["spark.sql.warehouse.dir"] == str(Path.home() / "tables")
    # A warehouse set in spark_conf, the dbt-spark way, is kept as written.
    both = session(warehouse_dir="s3a://a/b", spark_conf={"spark.sql.warehouse.dir": "s3a://c/d"})
    assert both.spark_conf["spark.sql.warehouse.dir"] == "s3a://c/d"
    assert "warehouse_dir" in creds._connection_keys()


@pytest.mark.parametrize(
    "location, kind",
    [
        ("/data/lake", "file"),
        ("file:///data/lake", "file"),
        ("S3A://bucket/x", "s3a"),
        ("hdfs://namenode:8020/lake", "hdfs"),
        ("abfss://c@account.dfs.core.windows.net/lake", "abfss"),
    ],
)
def test_scheme(location, kind):
    assert storage.scheme(location) == kind


@pytest.mark.parametrize(
    "location, message",
    [
        ("s3://bucket/lake", "write s3a://bucket/lake"),
        ("s3n://bucket/lake", "write s3a://bucket/lake"),
        ("s3a:///lake", "names no bucket"),
    ],
)
def test_locations_no_hadoop_file_system_serves_are_refused_with_the_fix(location, message):
    with pytest.raises(DbtRuntimeError, match=message):
        session(warehouse_dir=location)


def test_local_and_hdfs_warehouses_need_no_jar():
    for location in ("/data/lake", "file:/data/lake", "hdfs://nn/lake"):
        assert connector_jars.connector_jars(location, {}, print) == []


def test_an_object_store_without_a_connector_names_the_one_to_add():
    with pytest.raises(DbtRuntimeError, match="gcs-connector.*spark.jars.packages"):
        connector_jars.connector_jars("gs://bucket/lake", {}, print)
    hadoop = connector_jars.hadoop_version()
    with pytest.raises(DbtRuntimeError, match=f"hadoop-azure for Hadoop {hadoop}"):
        connector_jars.connector_jars("abfss://c@a.dfs.core.windows.net/lake", {}, print)
    # With the user's connector in spark_conf, nothing more is added.
    packages = {"spark.jars.packages": "com.google.cloud.bigdataoss:gcs-connector:3.0.0"}
    assert connector_jars.connector_jars("gs://bucket/lake", packages, print) == []


def test_the_s3_connector_matches_the_installed_hadoop():
    # pyspark's Hadoop must be one whose AWS SDK the adapter knows, or an
    # s3a:// warehouse fails with the message below.
    assert connector_jars.hadoop_version() in connector_jars.AWS_SDK_FOR_HADOOP
