"""The landed feeds as dbt sources (models/sources/_landing__sources.yml): the
ODS models read them through source(), so dbt knows their lineage, and
`dbt source freshness` tells from the newest file's modification time, without
opening a file, whether a feed still lands."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime

from tests.dbt_harness import spark
from tests.warehouse.scan_metrics import last_execution, opened_files, scans

# The ODS model that reads each feed, and where the feed lands.
READERS = {
    "billing_events": ("ods_billing_events_raw", "billing_events"),
    "account_changes": ("ods_account_changes", "account_changes"),
    "campaigns": ("ods_campaigns", "dimensions/campaigns.jsonl"),
    "ads": ("ods_ads", "dimensions/ads.jsonl"),
    "media": ("ods_media", "dimensions/media.jsonl"),
}


def landed(house, feed: str) -> list:
    """The feed's files as Spark sees them (hidden names left out)."""
    location = house.landing / READERS[feed][1]
    files = [location] if location.is_file() else location.rglob("*")
    return [p for p in files if p.is_file() and not p.name.startswith((".", "_"))]


def lines(house, feed: str) -> int:
    """The feed's lines (a final LF ends the last line; an empty file has none)."""
    count = 0
    for path in landed(house, feed):
        data = path.read_bytes()
        count += data.removesuffix(b"\n").count(b"\n") + 1 if data else 0
    return count


def newest_mtime(house, feed: str) -> datetime:
    """The newest file's modification time, to the millisecond (as the file
    system listing Spark reads gives it), in UTC."""
    millis = max(p.stat().st_mtime_ns for p in landed(house, feed)) // 1_000_000
    return datetime.fromtimestamp(millis // 1000, UTC).replace(microsecond=millis % 1000 * 1000)


def freshness(house, expect_ok: bool = True) -> dict[str, dict]:
    house.dbt("source", "freshness", expect_ok=expect_ok)
    results = json.loads((house.root / "target" / "sources.json").read_text())["results"]
    return {r["unique_id"].removeprefix("source.adlake.landing."): r for r in results}


def set_mtime(house, feed: str, moment: float) -> None:
    for path in landed(house, feed):
        os.utime(path, (moment, moment))


def test_feeds_are_sources_with_lineage_and_freshness(warehouse_factory):
    house = warehouse_factory("wsrc", seed=11, events=300, batches=2, accounts=20)
    house.land(1)
    house.dbt("run", "--select", *(model for model, _ in READERS.values()))

    # Each ODS model that reads a feed depends on the feed's source node, and
    # reads the feed's files through it: every landed line is a row.
    manifest = json.loads((house.root / "target" / "manifest.json").read_text())
    for feed, (model, _) in READERS.items():
        parents = manifest["nodes"][f"model.adlake.{model}"]["depends_on"]["nodes"]
        assert f"source.adlake.landing.{feed}" in parents, model
        assert manifest["child_map"][f"source.adlake.landing.{feed}"] == [f"model.adlake.{model}"]
        assert house.scalar(f"select count(*) from {{s}}_ods.{model}") == lines(house, feed), model

    # Freshly landed: every feed passes, and its max_loaded_at is its newest
    # file's time. The freshness queries list the files and open none.
    house.land(2)
    before = last_execution(spark())
    results = freshness(house)
    assert {feed: r["status"] for feed, r in results.items()} == dict.fromkeys(READERS, "pass")
    for feed, result in results.items():
        assert datetime.fromisoformat(result["max_loaded_at"]) == newest_mtime(house, feed), feed
    listings = scans(spark(), lambda name, desc: name.startswith("Scan binaryFile"), before)
    assert len(listings) == len(READERS)
    assert opened_files(spark(), after=before) == []

    # The newest file landed long ago: the events feed (20 minutes) warns, the
    # account changes (2 hours) are an error, and a dimension file warns after
    # a day and is never an error.
    now = time.time()
    ages = {"billing_events": 20 * 60, "account_changes": 2 * 3600, "campaigns": 3 * 86400}
    for feed, age in ages.items():
        set_mtime(house, feed, int(now) - age)
    results = freshness(house, expect_ok=False)
    assert {feed: r["status"] for feed, r in results.items()} == {
        "billing_events": "warn",
        "account_changes": "error",
        "campaigns": "warn",
        "ads": "pass",
        "media": "pass",
    }
    for feed, age in ages.items():
        loaded_at = datetime.fromisoformat(results[feed]["max_loaded_at"])
        assert loaded_at == datetime.fromtimestamp(int(now) - age, UTC), feed
        assert age <= results[feed]["max_loaded_at_time_ago_in_s"] < age + 300, feed

    # A warning alone does not fail the command.
    set_mtime(house, "account_changes", int(now))
    results = freshness(house)
    assert results["billing_events"]["status"] == "warn"
    assert results["account_changes"]["status"] == "pass"
