"""A write's settings, as a difference from what the session holds."""

from dbt.adapters.lakehouse.formats.hudi import write_settings as session_settings

BASELINE = {"hoodie.write.concurrency.mode": "optimistic_concurrency_control"}


def test_only_the_difference_is_applied():
    current = {
        "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
        "hoodie.upsert.shuffle.parallelism": "2",  # left by the last write, wanted again
        "hoodie.cleaner.policy": "KEEP_LATEST_COMMITS",  # left by the last write, not wanted
        "spark.sql.shuffle.partitions": "4",
    }  # not a write setting: left alone
    resets, sets = session_settings.plan(
        current, BASELINE, {"hoodie.upsert.shuffle.parallelism": 2, "hoodie.table.name": "t"}
    )
    assert resets == ["hoodie.cleaner.policy"]
    assert sets == {"hoodie.table.name": "t"}


def test_clearing_goes_back_to_the_connections_own_settings():
    current = {
        "hoodie.write.concurrency.mode": "single_writer",
        "hoodie.table.name": "t",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
    }
    resets, sets = session_settings.plan(current, BASELINE, {})
    assert resets == ["hoodie.table.name", "spark.sql.sources.partitionOverwriteMode"]
    assert sets == BASELINE
