"""ODS: every landed line is ingested exactly once, and a line that cannot be billed
is quarantined with its raw text and the reason, or held until its account
lands, never dropped."""

import os
from collections import Counter

from tests.dbt_harness import spark
from tests.warehouse.scan_metrics import last_execution, opened_files

INGEST = ("run", "--select", "+ods_billing_events_raw")
RAW = ("run", "--select", "ods_billing_events_raw")


def lines_per_file(folder):
    return {str(path): path.read_bytes().count(b"\n") for path in folder.rglob("*.jsonl")}


def ingested_per_file(house):
    rows = house.rows(
        "select source_file, count(*) as n from {s}_ods.ods_billing_events_raw group by source_file"
    )
    # Spark records files as URIs.
    return {r.source_file.removeprefix("file:"): r.n for r in rows}


def test_each_landed_file_is_ingested_exactly_once(warehouse_factory):
    house = warehouse_factory("wi", seed=3, events=2000, batches=2, accounts=40)
    events_landing = house.landing / "billing_events"

    house.land(1)
    house.dbt(*INGEST)
    assert ingested_per_file(house) == lines_per_file(events_landing)
    assert sum(ingested_per_file(house).values()) == house.truth[0]["landed_event_lines"]

    # A rerun with nothing new writes no commit and ingests nothing.
    commits = house.instants("ods", "ods_billing_events_raw")
    house.dbt(*INGEST)
    assert house.instants("ods", "ods_billing_events_raw") == commits
    assert ingested_per_file(house) == lines_per_file(events_landing)

    # Batch 2 lands without one of its files, which arrives late.
    house.land(2)
    late = sorted((events_landing / "batch=000002").glob("*.jsonl"))[-1]
    held = late.with_name(".held")
    late.rename(held)
    house.dbt(*INGEST)
    assert ingested_per_file(house) == lines_per_file(events_landing)

    # A run that dies before its commit completes: Hudi rolls the write back.
    # The files it read are then not recorded as ingested, so the next run
    # reads them again, together with the late file.
    last = house.instants("ods", "ods_billing_events_raw")[-1][0]
    house.operation("lake_rollback", instant=last, table="wi_ods.ods_billing_events_raw")
    assert sum(ingested_per_file(house).values()) == house.truth[0]["landed_event_lines"]
    held.rename(late)
    house.dbt(*INGEST)
    assert ingested_per_file(house) == lines_per_file(events_landing)
    assert sum(ingested_per_file(house).values()) == house.truth[1]["landed_event_lines"]

    # A run opens only the files it has not recorded with their length and
    # time. One file touched, its bytes unchanged: opened, hashed, skipped.
    touched = sorted((events_landing / "batch=000001").glob("*.jsonl"))[0]
    os.utime(touched, (touched.stat().st_atime, touched.stat().st_mtime + 5))
    commits, before = house.instants("ods", "ods_billing_events_raw"), last_execution(spark())
    house.dbt(*RAW)
    opened = opened_files(spark(), after=before)
    assert opened and set(opened) == {1}, opened
    assert house.instants("ods", "ods_billing_events_raw") == commits
    assert ingested_per_file(house) == lines_per_file(events_landing)

    # A file rewritten in place with new bytes is a new delivery: all its
    # lines again. The touched file is opened again too (its time is not
    # recorded), and no other.
    rewritten = sorted((events_landing / "batch=000002").glob("*.jsonl"))[0]
    old_lines = rewritten.read_bytes().count(b"\n")
    with rewritten.open("ab") as out:
        out.write(rewritten.read_bytes().splitlines(keepends=True)[0])
    before = last_execution(spark())
    house.dbt(*RAW)
    opened = opened_files(spark(), after=before)
    assert opened and set(opened) == {2}, opened
    expected = lines_per_file(events_landing)
    expected[str(rewritten)] += old_lines
    assert ingested_per_file(house) == expected


def test_lines_that_cannot_be_billed_are_quarantined_with_the_reason(warehouse_factory):
    # Batch 1 holds the events of two accounts whose inserts land in batch 2.
    house = warehouse_factory("wq", seed=5, events=2000, batches=2, accounts=40, late_accounts=2)
    for batch in (1, 2):
        house.land(batch)
        house.dbt("run", "--select", "+ods_billing_events", "+ods_billing_events_quarantine")
        truth = house.truth[batch - 1]
        reasons = Counter(
            {
                r.quarantine_reason: r.n
                for r in house.rows(
                    "select quarantine_reason, count(*) as n from {s}_ods.ods_billing_events_quarantine group by 1"
                )
            }
        )
        assert reasons == +Counter(truth["malformed"]), f"batch {batch}"
        held = house.scalar(
            "select count(*) from {s}_ods.ods_billing_events_held where hold_status = 'held'"
        )
        assert held == truth["held_event_lines"], f"batch {batch}"
        valid = house.scalar("select count(*) from {s}_ods.ods_billing_events")
        assert valid == truth["valid_event_lines"], f"batch {batch}"
        assert valid + sum(reasons.values()) + held == truth["landed_event_lines"]
    released = house.scalar(
        "select count(*) from {s}_ods.ods_billing_events_held where hold_status = 'released'"
    )
    assert released > 0, "the late accounts' events were released in batch 2"

    # The raw text is kept as it landed: every broken line is one of the landed lines.
    landed = {
        line
        for path in house.landing.rglob("*.jsonl")
        for line in path.read_bytes().decode("utf-8", "replace").splitlines()
    }
    broken = [
        r.raw_line
        for r in house.rows(
            "select raw_line from {s}_ods.ods_billing_events_quarantine where quarantine_reason = 'broken_json'"
        )
    ]
    assert broken and all(line in landed for line in broken)
