"""What a folder without a catalog entry holds, from the paths a listing
finds (writes/killed_creates.py); the runs that leave such folders are killed in
tests/adapter/functional/crash/test_killed_create.py."""

from __future__ import annotations

import fnmatch

import pytest

from dbt.adapters.lakehouse.writes import killed_creates
from dbt.adapters.lakehouse.writes.killed_creates import COMMITTED, LEFTOVER, NOTHING

LOCATION = "s3a://lake/warehouse/ads.db/top[1]"


def lister(files: list[str]):
    """A listing of `files` (paths under LOCATION) as a glob gives it: the
    folders and files a pattern matches, hidden ones included."""
    paths = set()
    for file in files:
        parts = file.split("/")
        paths.update("/".join(parts[: i + 1]) for i in range(len(parts)))

    def list_paths(location: str, pattern: str) -> list[str]:
        assert location == LOCATION, location
        # fnmatch's * crosses slashes; a glob's does not.
        depth = pattern.count("/")
        return [
            f"{LOCATION}/{path}"
            for path in sorted(paths)
            if path.count("/") == depth and fnmatch.fnmatchcase(path, pattern)
        ]

    return list_paths


CASES = {
    "absent or empty": ([], NOTHING, ""),
    "hudi create killed": (
        [".hoodie/hoodie.properties", ".hoodie/timeline/history/.keep"],
        LEFTOVER,
        "no completed instant",
    ),
    "hudi write in flight": (
        [".hoodie/hoodie.properties", ".hoodie/timeline/20261206120510775.commit.requested"],
        LEFTOVER,
        "no completed instant",
    ),
    "hudi committed": (
        [
            ".hoodie/hoodie.properties",
            ".hoodie/timeline/20261206120510775_20261206120512001.commit",
            "a.parquet",
        ],
        COMMITTED,
        "1 completed instant(s) on its timeline, the latest 20261206120510775_20261206120512001",
    ),
    "delta ctas killed before its commit": (
        ["_delta_log/_commits/.keep", "part-00000.snappy.parquet"],
        LEFTOVER,
        "no version in its log",
    ),
    "delta create table committed, no data": (
        ["_delta_log/00000000000000000000.json"],
        LEFTOVER,
        "log with no data files",
    ),
    "delta committed data": (
        ["_delta_log/00000000000000000000.json", "day=1/part-00000.snappy.parquet"],
        COMMITTED,
        "1 version(s) in its log, the latest 00000000000000000000.json",
    ),
    "plain files": (["part-00000.parquet"], COMMITTED, "files of no table format"),
    "a completed plain write": (["_SUCCESS", "part-0.parquet"], COMMITTED, "completed write"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_folder_is_told_by_what_its_format_committed(case):
    files, verdict, words = CASES[case]
    found = killed_creates.look(LOCATION, lister(files))
    assert found.verdict == verdict
    assert words in found.holds


def test_the_refusal_names_the_folder_what_it_holds_and_both_ways_out():
    found = killed_creates.look(
        LOCATION,
        lister([".hoodie/timeline/1_2.deltacommit", ".hoodie/hoodie.properties"]),
    )
    message = killed_creates.committed_error("top", "ads.top", LOCATION, found)
    assert "Model top" in message and LOCATION in message
    assert "1 completed instant(s)" in message
    assert f"create table ads.top using hudi location '{LOCATION}'" in message
    assert f"hadoop fs -rm -r {LOCATION}" in message


def test_glob_characters_in_a_location_match_only_themselves():
    assert killed_creates.literal_glob("s3a://b/w/t{1}*?[x]") == r"s3a://b/w/t\{1\}\*\?\[x\]"


def test_a_local_folder_is_looked_at_directly_and_a_bucket_through_the_session(tmp_path):
    asked = []

    def through_session(location: str, pattern: str) -> list[str]:
        asked.append((location, pattern))
        return []

    list_paths = killed_creates.local_lister(through_session)
    folder = tmp_path / "t[1]"
    (folder / ".hoodie" / "timeline").mkdir(parents=True)
    (folder / ".hoodie" / "timeline" / "1_2.commit").write_text("")
    found = killed_creates.look(f"file:{folder}", list_paths)
    assert found.verdict == COMMITTED and "1_2.commit" in found.holds
    assert killed_creates.look(str(tmp_path / "absent"), list_paths).verdict == NOTHING
    assert asked == []
    assert killed_creates.look("s3a://b/w/t", list_paths).verdict == NOTHING
    assert asked == [("s3a://b/w/t", "*")]
