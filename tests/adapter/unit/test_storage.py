"""The warehouse location of the embedded session (storage/locations.py): a local folder
or a Hadoop URI, the connector jars each needs (storage/connector_jars.py), and the errors for locations
that cannot work (no Spark is started; no jar is fetched)."""

from pathlib import Path

import pytest
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.storage import connector_jars
from dbt.adapters.lakehouse.storage import locations as storage


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


def test_a_warehouse_on_s3a_starts_with_bounded_retries_the_profile_can_override():
    defaults = storage.session_defaults("s3a://bucket/warehouse")
    assert defaults["spark.hadoop.fs.s3a.attempts.maximum"] == "3"
    assert defaults["spark.hadoop.fs.s3a.retry.limit"] == "3"
    # Later Hadoop releases' default, not 3.3.4's 96 (storage/locations.py).
    assert defaults["spark.hadoop.fs.s3a.connection.maximum"] == "500"
    assert storage.session_defaults("/tmp/lake/warehouse") == {}
    assert storage.session_defaults("hdfs://nn/warehouse") == {}


# The S3 client's error for a store that went away mid-write, as Hudi's
# write of a model reported it through Spark (Hadoop 3.3.4, AWS SDK 1.12.262).
LOST = (
    "org.apache.hudi.exception.HoodieIOException: Failed to create file "
    "s3a://lake-test/warehouse/s3t.db/orders/.hoodie/timeline/x.deltacommit\n"
    "Caused by: org.apache.hadoop.fs.s3a.AWSClientIOException: getFileStatus on "
    "s3a://lake-test/warehouse/s3t.db/orders: com.amazonaws.SdkClientException: Unable "
    "to execute HTTP request: Connect to 127.0.0.1:47797 [/127.0.0.1] failed: Connection "
    "refused: Unable to execute HTTP request"
)


def test_a_statement_that_lost_the_store_says_so_and_what_to_do():
    from dbt.adapters.lakehouse.storage.probe import store_lost

    said = store_lost(LOST)
    assert said is not None
    assert "The object store at 127.0.0.1:47797 stopped answering" in said
    assert "Connection refused" in said and "run again" in said
    assert store_lost("org.apache.spark.sql.AnalysisException: table not found") is None


def test_a_statement_that_found_no_free_connection_says_why_and_what_to_do():
    from dbt.adapters.lakehouse.storage.probe import connections_exhausted

    # As a model's upsert reported it with the metadata table on (Hudi 1.2.0).
    said = connections_exhausted(
        "org.apache.hudi.exception.HoodieUpsertException: Failed to upsert\n"
        "Caused by: com.amazonaws.SdkClientException: Unable to execute HTTP request: "
        "Timeout waiting for connection from pool"
    )
    assert said is not None
    assert "fs.s3a.connection.maximum" in said and "hoodie.metadata.enable: false" in said
    assert connections_exhausted(LOST) is None


PROBED = "s3a://lake/warehouse"
ENDPOINT = "http://127.0.0.1:44037"


@pytest.mark.parametrize(
    "causes, says",
    [
        (
            [
                ("java.nio.file.AccessDeniedException", "getFileStatus: Status Code: 403"),
                ("com.amazonaws.services.s3.model.AmazonS3Exception", "Forbidden"),
            ],
            "refused the access keys for bucket lake",
        ),
        (
            [("org.apache.hadoop.fs.s3a.UnknownStoreException", "NoSuchBucket")],
            "has no bucket lake",
        ),
        # The port holds "403": a refused connection is still one.
        (
            [
                ("org.apache.hadoop.fs.s3a.AWSClientIOException", "Connect to 127.0.0.1:44037"),
                ("java.net.ConnectException", "Connection refused"),
            ],
            "cannot reach the S3 store at http://127.0.0.1:44037 (ConnectException: "
            "Connection refused)",
        ),
    ],
)
def test_a_failed_probe_is_explained_by_what_went_wrong(causes, says):
    from dbt.adapters.lakehouse.storage.probe import explain

    message = explain(PROBED, ENDPOINT, causes)
    assert message.startswith(f"warehouse_dir: {PROBED}: ")
    assert says in message
