"""The adlake project itself: two batches through ODS -> DWD -> DWS -> ADS, all dbt tests green."""

import csv
from collections import defaultdict

import yaml

from tests.functional.conftest import REPO, completed_instants, hudi_jar, read_properties, run_dbt, spark

SCHEMA = "wh"


def expected_spend_by_industry(through_batch):
    """What ADS must show, computed from the seed files without Spark: the highest
    version of each event wins, only accounts that exist count."""
    with open(REPO / "seeds" / "accounts.csv") as f:
        industry = {row["account_id"]: row["industry"] for row in csv.DictReader(f)}
    latest = {}
    with open(REPO / "seeds" / "billing_events_sample.csv") as f:
        for row in csv.DictReader(f):
            if int(row["batch_id"]) > through_batch:
                continue
            current = latest.get(row["event_id"])
            if current is None or int(row["event_version"]) > int(current["event_version"]):
                latest[row["event_id"]] = row
    spend = defaultdict(int)
    for row in latest.values():
        if row["account_id"] in industry:
            spend[industry[row["account_id"]]] += int(row["cost_micros"])
    return dict(spend), len(latest)


def ads_spend_by_industry():
    rows = spark().newSession().sql(
        f"select industry, sum(spend_micros) from {SCHEMA}_ads.ads_industry_spend group by industry"
    ).collect()
    return {industry: total for industry, total in rows}


def test_two_batches_build_the_warehouse_incrementally(tmp_path, lake_dir):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "profiles.yml").write_text(yaml.safe_dump({"adlake": {"target": "local", "outputs": {
        "local": {"type": "lakehouse", "method": "session", "schema": SCHEMA,
                  "lake_dir": str(lake_dir), "hudi_jar": str(hudi_jar()), "threads": 1}}}}))
    paths = ["--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]

    run_dbt(["build", "--vars", "{landed_through_batch: 1}"], REPO, profiles, extra=paths)
    spend, events = expected_spend_by_industry(1)
    assert ads_spend_by_industry() == spend

    run_dbt(["build"], REPO, profiles, extra=paths)
    spend, events = expected_spend_by_industry(99)
    assert ads_spend_by_industry() == spend
    assert spark().newSession().sql(
        f"select count(*) from {SCHEMA}_dwd.dwd_billing_events").collect()[0][0] == events

    dwd = lake_dir / "warehouse" / f"{SCHEMA}_dwd.db" / "dwd_billing_events"
    assert read_properties(dwd / ".hoodie" / "hoodie.properties")["hoodie.table.type"] == "MERGE_ON_READ"
    # Batch 2 was an incremental upsert on the same table, not a rebuild.
    assert [action for _, _, action in completed_instants(dwd)] == ["deltacommit", "deltacommit"]
