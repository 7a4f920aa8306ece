"""Cleaning keeps the configured number of file slices; a bucket index fixes the file groups."""

import re
from collections import Counter

BASE_FILE = re.compile(r"^([0-9a-f-]+-\d+)_[\d-]+_(\d+)\.parquet$")


def slices_per_file_group(table_dir):
    """Base files (file slices of a COW table) per file group, from the files on disk."""
    counts = Counter()
    for path in table_dir.rglob("*.parquet"):
        if ".hoodie" in path.parts:
            continue
        match = BASE_FILE.match(path.name)
        if match:
            counts[(path.parent.name, match.group(1))] += 1
    return counts


def test_keep_latest_file_versions_leaves_at_most_retain_slices(project):
    project.model(
        "spend",
        """
        {{ config(materialized='incremental', unique_key='id', precombine_key='version',
                  cleaning={'policy': 'keep_latest_file_versions', 'retain': 2}) }}
        select id, {{ var('run') }} as version from (values (1), (2), (3)) as t(id)
    """,
    )
    for run in range(1, 6):
        project.dbt("run", "--vars", f"{{run: {run}}}")
    slices = slices_per_file_group(project.table_dir("spend"))
    # Five COW commits rewrote the file group five times; cleaning kept two slices.
    assert slices and max(slices.values()) == 2, slices
    actions = [a for _, _, a in project.completed_instants("spend")]
    assert actions.count("commit") == 5 and "clean" in actions
    props = {r[0]: r[1] for r in project.rows("show tblproperties {schema}.spend")}
    assert props["hoodie.cleaner.policy"] == "KEEP_LATEST_FILE_VERSIONS"
    assert props["hoodie.cleaner.fileversions.retained"] == "2"
    assert project.scalar("select sum(version) from {schema}.spend") == 15


def test_bucket_index_gives_n_file_groups_per_partition(project):
    project.model(
        "events",
        """
        {{ config(materialized='incremental', unique_key='id', partition_by='day',
                  index={'type': 'bucket', 'buckets': 3}) }}
        select id, concat('d', id % 2) as day from (select explode(sequence(1, 60)) as id)
    """,
    )
    project.dbt("run")
    groups = {}
    for path in project.table_dir("events").rglob("*.parquet"):
        if ".hoodie" not in path.parts:
            groups.setdefault(path.parent.name, set()).add(path.name.split("-")[0])
    # Bucket file groups are named by bucket number: 00000000, 00000001, 00000002.
    assert groups == {
        "day=d0": {"00000000", "00000001", "00000002"},
        "day=d1": {"00000000", "00000001", "00000002"},
    }
    assert project.scalar("select count(*) from {schema}.events") == 60
