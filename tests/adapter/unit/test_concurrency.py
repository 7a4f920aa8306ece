"""The profile's concurrency and lock_provider, and the hoodie.* settings they give."""

import pytest
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.connections import explain_concurrent_failure
from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.formats.hudi import concurrency

POSTGRES = {
    "spark.hadoop.javax.jdo.option.ConnectionURL": "jdbc:postgresql://127.0.0.1:5433/metastore"
}


def credentials(**fields) -> LakehouseCredentials:
    return LakehouseCredentials(method="session", schema="s", database=None, **fields)


def test_single_writer_by_default_on_the_lakes_own_catalog():
    creds = credentials()
    assert creds.concurrency == "single_writer"
    assert not [k for k in creds.server_side_parameters if k.startswith("hoodie.")]


def test_a_derby_url_is_still_the_lakes_own_catalog():
    creds = credentials(
        spark_conf={"spark.hadoop.javax.jdo.option.ConnectionURL": "jdbc:derby:;databaseName=x"}
    )
    assert creds.concurrency == "single_writer"


def test_optimistic_by_default_on_a_shared_catalog():
    params = credentials(spark_conf=POSTGRES).server_side_parameters
    assert params["hoodie.write.concurrency.mode"] == "optimistic_concurrency_control"
    assert params["hoodie.cleaner.policy.failed.writes"] == "LAZY"
    assert params["hoodie.write.lock.provider"].endswith(".FileSystemBasedLockProvider")
    assert params["hoodie.write.lock.filesystem.expire"] == "1"


def test_a_shared_catalog_can_still_ask_for_a_single_writer():
    assert (
        credentials(spark_conf=POSTGRES, concurrency="single_writer").concurrency == "single_writer"
    )


@pytest.mark.parametrize(
    "name, provider",
    [
        ("in_process", "org.apache.hudi.client.transaction.lock.InProcessLockProvider"),
        (
            "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
            "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
        ),
    ],
)
def test_other_lock_providers_have_no_lock_file_expiry(name, provider):
    settings = concurrency.hudi_settings(concurrency.OPTIMISTIC, name)
    assert settings["hoodie.write.lock.provider"] == provider
    assert "hoodie.write.lock.filesystem.expire" not in settings


def test_server_side_parameters_win_over_the_chosen_settings():
    creds = credentials(
        concurrency="optimistic",
        server_side_parameters={"hoodie.write.lock.filesystem.expire": "5"},
    )
    assert creds.server_side_parameters["hoodie.write.lock.filesystem.expire"] == "5"
    assert (
        creds.server_side_parameters["hoodie.write.concurrency.mode"]
        == "optimistic_concurrency_control"
    )


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"concurrency": "mvcc"}, ["concurrency", "'mvcc'", "single_writer, optimistic"]),
        (
            {"concurrency": "optimistic", "lock_provider": "etcd"},
            ["lock_provider", "'etcd'", "filesystem, in_process, zookeeper", "class name"],
        ),
        (
            {"concurrency": "optimistic", "lock_provider": "zookeeper"},
            [
                "lock_provider: zookeeper",
                "hoodie.write.lock.zookeeper.url",
                "server_side_parameters",
            ],
        ),
        (
            {"concurrency": "optimistic", "warehouse_dir": "s3a://bucket/lake"},
            ["lock_provider: filesystem", "s3a://bucket/lake", "not atomic", "zookeeper"],
        ),
    ],
)
def test_a_wrong_value_names_the_setting_and_what_is_allowed(fields, words):
    with pytest.raises(DbtRuntimeError) as raised:
        credentials(**fields)
    for word in words:
        assert word in str(raised.value)


def test_zookeeper_locks_each_table_at_the_ensemble_the_profile_names():
    creds = credentials(
        concurrency="optimistic",
        lock_provider="zookeeper",
        warehouse_dir="s3a://bucket/lake",
        server_side_parameters={"hoodie.write.lock.zookeeper.url": "127.0.0.1:2181"},
    )
    params = creds.server_side_parameters
    assert params["hoodie.write.lock.provider"].endswith(
        ".ZookeeperBasedImplicitBasePathLockProvider"
    )
    assert params["hoodie.write.lock.zookeeper.url"] == "127.0.0.1:2181"
    assert "hoodie.write.lock.filesystem.expire" not in params


def test_a_lock_file_is_refused_on_s3_only():
    for warehouse in ("gs://bucket/lake", "hdfs://nn/lake", "/var/lake"):
        creds = credentials(concurrency="optimistic", warehouse_dir=warehouse)
        assert creds.server_side_parameters["hoodie.write.lock.provider"].endswith(
            ".FileSystemBasedLockProvider"
        )
    # One writer at a time takes no lock at all: S3 is fine.
    assert credentials(warehouse_dir="s3a://bucket/lake").concurrency == "single_writer"


# How Hudi 1.2 fails a statement whose clean met another writer's (the
# second, on a local disk, as Hadoop's local file system words it).
CLEAN_MET_ANOTHER = (
    "org.apache.hudi.exception.HoodieIOException: Failed to create file "
    "s3a://lake-test/warehouse/s3w.db/shared/.hoodie/timeline/20261129075814913.clean.inflight\n"
    "Caused by: org.apache.hadoop.fs.FileAlreadyExistsException: "
    "s3a://lake-test/warehouse/s3w.db/shared/.hoodie/timeline/20261129075814913.clean.inflight "
    "already exists",
    "Caused by: org.apache.hadoop.fs.FileAlreadyExistsException: File already exists: "
    "file:/lake/s.db/t/.hoodie/timeline/20261129075814913.clean.inflight",
)


@pytest.mark.parametrize("message", CLEAN_MET_ANOTHER)
def test_a_clean_that_met_another_writers_says_the_write_committed_and_who_should_clean(message):
    said = explain_concurrent_failure(message)
    assert "met another writer's clean" in said
    assert "the write, if it wrote, is committed" in said
    assert "hoodie.clean.automatic: 'false'" in said


def test_a_write_conflict_says_nothing_changed_and_to_run_again():
    said = explain_concurrent_failure("org.apache.hudi.exception.HoodieWriteConflictException: x")
    assert "changed nothing: run it again" in said


@pytest.mark.parametrize(
    "message",
    [
        # A file that exists, but no clean's; a clean's file, but no collision.
        "FileAlreadyExistsException: File already exists: file:/l/t/.hoodie/20261129075814913.commit",
        "HoodieIOException: Could not read s3a://b/t/.hoodie/timeline/20261129075814913.clean.requested",
    ],
)
def test_other_failures_are_left_as_they_are(message):
    assert explain_concurrent_failure(message) is None
