"""Continuous mode (adlake.runner.continuous): each batch is built as it lands, and
a restart builds only what landed since the last completed build; with small
triggers, DWD compacts between builds, cleans and archives, and its timeline
stays bounded."""

from __future__ import annotations

import re
import signal
import time
from collections import Counter

import pytest

from adlake.runner import continuous
from adlake.runner.warehouse import Builds, work_args

# dwd_billing_events' table services at their smallest: a compaction planned
# every 2 delta commits, cleaning keeping 1 commit, archiving trimming the
# active timeline to 3 commits once it holds more than 4. Over this test's
# four builds DWD compacts, cleans and archives on the path a stream runs.
# (Archiving must keep the instant DWS last read from: with 2 kept, the
# compaction run after a build archives it, and DWS's next change read is
# refused as one that could miss changes.)
SERVICES = {
    "dwd_compaction_delta_commits": 2,
    "dwd_cleaning_retain": 1,
    "dwd_archive_min_commits": 3,
    "dwd_archive_max_commits": 4,
}


def builds_for(house) -> Builds:
    # As continuous.main() builds: DWD's compactions planned by the build, run
    # after it; a batch's checks after its models (ADS first).
    builds = Builds(
        work_args(house.root, house.profiles), compact_between_builds=True, checks_after_models=True
    )
    builds.vars.update(SERVICES)
    return builds


def test_builds_each_batch_as_it_lands_and_resumes_after_a_restart(
    warehouse_factory, tmp_path, capsys
):
    house = warehouse_factory("cont", seed=5, events=800, batches=4, accounts=30)
    state_file = tmp_path / "continuous_state.json"
    # Every instant DWD completed, noted after each build (archiving moves
    # the oldest out of the active timeline).
    dwd_instants: set = set()

    def note_dwd() -> list:
        active = house.instants("dwd", "dwd_billing_events")
        dwd_instants.update(active)
        return active

    def run_watcher(builds=None, **kwargs):
        # A fresh State and Builds each time: what a restarted process has.
        return continuous.watch(
            house.landing,
            continuous.State(state_file),
            builds or builds_for(house),
            schema="cont",
            poll=0.1,
            settle=0.2,
            **kwargs,
        )

    house.land(1)
    first_builds = builds_for(house)
    [first] = run_watcher(first_builds, max_builds=1)
    parsed_manifest = first_builds.manifest
    note_dwd()
    assert first["files"] > 0 and first["lines_in"] is None  # no count from before this process
    lines_1 = house.scalar("select count(*) from {s}_ods.ods_billing_events_raw")
    assert first["lines_total"]["landed"] == lines_1 > 0
    assert set(first["seconds"]) >= {"ods", "dwd", "dws", "ads", "tests"}
    assert first["landing_to_ads"] > 0
    # DWD's writes plan compactions; the watcher runs them between batches.
    assert "compaction_s" in first
    props = dict(house.rows("show tblproperties {s}_dwd.dwd_billing_events"))
    assert (props["hoodie.compact.inline"], props["hoodie.compact.schedule.inline"]) == (
        "false",
        "true",
    )

    # Restarted with nothing new: it builds nothing.
    assert run_watcher(stop=lambda: True) == []
    polls = iter(range(3))
    assert run_watcher(stop=lambda: next(polls, None) is None) == []
    assert len(house.instants("ods", "ods_billing_events_raw")) == 1

    # Batch 2 lands while it is stopped: the restart builds it, once; batch 3
    # lands after it. (A watcher restarted in a process that ran dbt already:
    # it reads the tables' instants to check what the batches write.) Their
    # checks run once, after batch 3's models: what both batches wrote.
    house.land(2)
    seen = {}

    def after_build(figures):
        note_dwd()
        seen[len(seen) + 2] = (
            house.scalar("select sum(spend_micros) from {s}_ads.ads_spend_by_customer"),
            "checked_at" in figures,
        )
        if len(seen) == 1:
            house.land(3)

    builds = builds_for(house)
    builds.manifest = parsed_manifest
    second, third = run_watcher(builds, max_builds=2, after_build=after_build)
    landed = house.scalar("select count(*) from {s}_ods.ods_billing_events_raw")
    assert third["lines_total"]["landed"] == landed > second["lines_total"]["landed"] > lines_1
    assert third["lines_total"]["landed"] == sum(
        third["lines_total"][k] for k in ("valid", "quarantined", "held")
    )
    # Batch 2's figures were in ADS before any check of them ran.
    assert seen == {
        2: (house.truth[1]["cost_micros"], False),
        3: (house.truth[2]["cost_micros"], True),
    }
    assert second["checked_at"] == third["checked_at"] > third["ads_done_at"]
    assert "tests" not in second["seconds"] and third["seconds"]["tests"] > 0
    out = capsys.readouterr().out
    assert "batches 1, 2: checked (what they wrote)" in out

    # A whole-table check falls due (here at every build): it runs in pieces
    # while the folder is quiet, each a share of the data tests, until every
    # test has run once; the batch's own check (what it wrote) goes on
    # beside it. The watcher stops once the last piece ran.
    house.land(4)
    printed = []
    deadline = time.monotonic() + 900

    def swept() -> bool:
        printed.append(capsys.readouterr().out)
        return "; 0 to go" in "".join(printed) or time.monotonic() > deadline

    builds = builds_for(house)
    builds.manifest = parsed_manifest
    [fourth] = run_watcher(builds, full_checks_every=1, stop=swept)
    out = "".join(printed) + capsys.readouterr().out
    pieces = re.findall(
        r"whole-table check: (\d+) data tests in \S+ s \(expected \S+ s\) \[([^]]*)\]; (\d+) to go",
        out,
    )
    assert len(pieces) >= 2, out
    data_tests = builds.data_tests()
    assert sum(int(ran) for ran, _, _ in pieces) == len(data_tests) > 20
    assert [int(left) for _, _, left in pieces] == sorted(
        (int(left) for _, _, left in pieces), reverse=True
    )
    assert all(set(re.findall(r"\d+ (\w+)", tally)) == {"pass"} for _, tally, _ in pieces)
    # Batch 4 (this watcher's first) was checked by its own check, of what it
    # wrote: the pieces mark no batch checked.
    assert "batches 1: checked (what they wrote)" in out
    assert fourth["lines_total"]["landed"] == house.scalar(
        "select count(*) from {s}_ods.ods_billing_events_raw"
    )

    # DWD's table services ran between and within the builds: each write a
    # delta commit, compactions planned by the writes and run after their
    # builds, cleans of the file versions they replaced, and archiving kept
    # the active timeline bounded (the 4 commits it may hold, and a build's
    # clean and compaction).
    active = note_dwd()
    actions = Counter(action for _, _, action in dwd_instants)
    assert actions["deltacommit"] == 4, actions
    assert actions["commit"] >= 1 and actions["clean"] >= 1, actions
    dwd_dir = house.lake_dir / "warehouse" / "cont_dwd.db" / "dwd_billing_events"
    assert list((dwd_dir / ".hoodie" / "timeline" / "history").glob("*.parquet"))
    assert len(active) < len(dwd_instants) and len(active) <= 4 + 2, active


def test_a_second_ctrl_c_stops_at_once():
    stop = continuous.StopRequest()
    previous = signal.getsignal(signal.SIGINT)
    try:
        stop(signal.SIGINT, None)
        assert stop.requested
        with pytest.raises(KeyboardInterrupt):
            stop(signal.SIGINT, None)
    finally:
        signal.signal(signal.SIGINT, previous)
