"""The adlake warehouse, batch by batch: `dbt build` (models and every data test)
after each landed batch, and the figures equal the generator's own truth; then
the docs site dbt generates for it, in a browser (docs_site_checks.py)."""

import json

from tests.dbt_harness import read_properties, spark
from tests.warehouse.docs_site_checks import check_docs_site
from tests.warehouse.scan_metrics import files_read, table_scans

# The data tests tagged full_builds_only: the per_batch selector leaves them out.
FULL_BUILDS_ONLY = {
    "cost_conserved_dwd_to_dws_hourly",
    "cost_conserved_dwd_to_dws_daily",
    "cost_conserved_dws_hourly_to_daily",
    "cost_conserved_dws_daily_to_ads_industry",
    "cost_conserved_dws_daily_to_ads_customer",
    "cost_conserved_dwd_to_dwd_enriched",
    "unique_dwd_billing_events_enriched_event_id",
    "not_null_columns_dwd_billing_events_enriched_event_id__campaign_name__account_name__agency_name__industry",
    "relationships_dwd_billing_events_account_id__account_id__ref_ods_account_changes_",
    "relationships_dwd_billing_events_campaign_id__campaign_id__ref_ods_campaigns_",
    "relationships_dwd_billing_events_ad_id__ad_id__ref_ods_ads_",
    "relationships_dwd_billing_events_billing_type__billing_type__ref_billing_types_",
    "accepted_values_dwd_billing_events_billing_type__CPC__CPM__oCPM",
    "unique_dwd_account_labels_account_id",
    "not_null_columns_dwd_account_labels_account_id__account_name__agency_name__industry",
}


def test_batches_build_the_warehouse_to_the_generators_truth_and_its_docs_site(
    warehouse_factory,
):
    # A day per batch: batch 3's deltas touch fewer days than the hourly
    # aggregate holds.
    house = warehouse_factory(
        "wh", seed=11, events=3000, batches=3, accounts=60, batch_minutes=1440
    )
    for batch in (1, 2, 3):
        house.land(batch)
        if batch == 3:
            hourly_run_reads_only_touched_days(house)
        # As `make run` does between its whole checks, batch 2's data tests
        # check what its build wrote (lakehouse_test_scope: changed), and the
        # per_batch selector leaves out the comparisons another test repeats.
        scope = "changed" if batch == 2 else "full"
        selector = ["--selector", "per_batch"] if batch == 2 else []
        result = house.dbt(
            "build", *selector, "--vars", f"{{lakehouse_test_scope: {scope}}}"
        )  # fails on any failing data test
        # The models' dbt unit tests run in the whole-table builds (tagged
        # full_builds_only, so the per_batch selector leaves them out).
        units = [r for r in result.result.results if r.node.resource_type == "unit_test"]
        assert (len(units) >= 6) if batch != 2 else not units, len(units)
        assert all(str(r.status) == "pass" for r in units)
        compiled = {
            r.node.name: r.node.compiled_code or ""
            for r in result.result.results
            if r.node.resource_type == "test"
        }
        scoped = {
            name
            for name, sql in compiled.items()
            if "hudi_table_changes(" in sql or "_hoodie_commit_time >" in sql
        }
        if batch == 2:
            assert len(scoped) > 40, sorted(scoped)
            assert {
                "assert_cost_conserved_across_layers",
                "assert_events_agree_with_their_ad",
                "assert_dws_hourly_rows_are_consistent",
                "unique_dwd_billing_events_event_id",
            } <= scoped
            # A row test of one table: it reads only the rows the build wrote,
            # in the days it wrote. dwd_billing_events is merge-on-read and
            # merged by an ordering field, so they come from its snapshot (by
            # commit time), not from Hudi's incremental read, which can return
            # a late write that lost (data_tests/scope.py).
            events = compiled["assert_events_agree_with_their_ad"]
            assert "_hoodie_commit_time >" in events and "cast(`event_date` as string) =" in events
            assert "hudi_table_changes(" not in events
            assert (
                "collect_set(touched.event_date)" in compiled["assert_cost_conserved_across_layers"]
            )
            assert (
                "collect_set(touched.event_date)" in compiled["assert_dws_hourly_equals_recompute"]
            )
            assert not FULL_BUILDS_ONLY & set(compiled)
        else:
            assert not scoped
            assert FULL_BUILDS_ONLY <= set(compiled)
        truth = house.truth[batch - 1]
        by_industry = {
            r.industry: r.spend
            for r in house.rows(
                "select industry, sum(spend_micros) as spend from {s}_ads.ads_spend_by_industry group by 1"
            )
        }
        # An industry whose events all cost nothing may be absent on either side.
        nonzero = lambda spend: {k: v for k, v in spend.items() if v}  # noqa: E731
        assert nonzero(by_industry) == nonzero(truth["cost_by_industry"]), f"batch {batch}"
        assert (
            house.scalar("select sum(spend_micros) from {s}_ads.ads_spend_by_customer")
            == truth["cost_micros"]
        )
        assert house.scalar("select count(*) from {s}_dwd.dwd_billing_events") == truth["events"]
        assert (
            house.scalar("select count(*) from {s}_dwd.dwd_accounts") == truth["accounts_current"]
        )
        counts = house.rows(
            "select sum(impressions), sum(clicks), sum(conversions) from {s}_dws.dws_spend_daily"
        )[0]
        assert tuple(counts) == (truth["impressions"], truth["clicks"], truth["conversions"])

    # The batch again, on data that did not change: no table of any layer gets a commit.
    def timelines():
        return {
            table.name: house.instants(layer, table.name)
            for layer in ("ods", "dwd", "dws", "ads")
            for table in (house.lake_dir / "warehouse" / f"wh_{layer}.db").iterdir()
            if (table / ".hoodie").is_dir()
        }

    before = timelines()
    log = house.root / "logs" / "dbt.log"
    start = log.stat().st_size
    house.dbt("run")
    assert timelines() == before
    # The ODS models that read the landing folder found no new file there: not run at all.
    with open(log) as handle:
        handle.seek(start)
        logged = handle.read()
    for model in (
        "ods_billing_events_raw",
        "ods_account_changes",
        "ods_media",
        "ods_campaigns",
        "ods_ads",
    ):
        assert f"{model}: nothing new to read; not run" in logged, model

    # A dimension file delivered again with new content is read again: its
    # rows are upserted by key.
    media_file = house.landing / "dimensions" / "media.jsonl"
    lines = media_file.read_text().splitlines()
    first = json.loads(lines[0])
    renamed = dict(first, media_name=first["media_name"] + " (renamed)")
    media_file.write_text("\n".join([json.dumps(renamed)] + lines[1:]) + "\n")
    media_commits = len(house.instants("ods", "ods_media"))
    house.dbt("run", "--select", "ods_media")
    assert len(house.instants("ods", "ods_media")) == media_commits + 1
    assert house.rows(
        f"select media_name, count(*) over () from {{s}}_ods.ods_media "
        f"where media_id = {first['media_id']}"
    ) == [(renamed["media_name"], 1)]
    assert house.scalar("select count(*) from {s}_ods.ods_media") == len(lines)

    dwd = house.lake_dir / "warehouse" / "wh_dwd.db" / "dwd_billing_events"
    assert (
        read_properties(dwd / ".hoodie" / "hoodie.properties")["hoodie.table.type"]
        == "MERGE_ON_READ"
    )
    # Each batch was an incremental upsert on the same table, not a rebuild.
    assert [a for _, _, a in house.instants("dwd", "dwd_billing_events")] == ["deltacommit"] * 3
    # The hourly aggregate read DWD's changes: after the first build, each
    # commit records the DWD instant it consumed.
    assert len(house.instants("dws", "dws_spend_hourly")) == 3

    # An ad gone from ods_ads: the ad check, which stands for DWD's dimension
    # relationships between whole-table builds, names each of its events.
    ad = house.scalar("select min(ad_id) from {s}_dwd.dwd_billing_events")
    events_of_ad = house.scalar(
        f"select count(*) from {{s}}_dwd.dwd_billing_events where ad_id = {ad}"
    )
    house.rows(f"delete from {{s}}_ods.ods_ads where ad_id = {ad}")
    result = house.dbt("test", "--select", "assert_events_agree_with_their_ad", expect_ok=False)
    assert [r.failures for r in result.result.results] == [events_of_ad] and events_of_ad > 0

    check_docs_site(house)


def hourly_run_reads_only_touched_days(house):
    """Runs the models up to dws_spend_hourly and checks that it read its own
    stored rows of the days its deltas touched (the days its new commit
    wrote), not the whole table."""
    table = "wh_dws.dws_spend_hourly"
    query = f"select event_date, count(distinct _hoodie_file_name) from {table} group by 1"
    files_before = dict(house.rows(query))
    house.dbt("run", "--select", "+dws_spend_hourly")
    # The table's last scan: the model's read of its stored rows (nothing
    # after it in that run reads the table).
    read = files_read(table_scans(spark(), table)[-1])
    latest = house.instants("dws", "dws_spend_hourly")[-1][0]
    touched = {
        r.event_date
        for r in house.rows(
            f"select distinct event_date from {table} where _hoodie_commit_time = '{latest}'"
        )
    }
    expected = sum(files_before.get(day, 0) for day in touched)
    assert 0 < read == expected < sum(files_before.values()), (read, sorted(touched), files_before)
