"""Continuous mode (adlake.runner.continuous): each batch is built as it lands, and
a restart builds only what landed since the last completed build."""

from __future__ import annotations

import signal

import pytest

from adlake.runner import continuous
from adlake.runner.warehouse import Builds, work_args


def builds_for(house) -> Builds:
    # As continuous.main() builds: DWD's compactions planned by the build, run
    # after it; a batch's checks after its models (ADS first).
    return Builds(
        work_args(house.root, house.profiles), compact_between_builds=True, checks_after_models=True
    )


def test_builds_each_batch_as_it_lands_and_resumes_after_a_restart(
    warehouse_factory, tmp_path, capsys
):
    house = warehouse_factory("cont", seed=5, events=600, batches=3, accounts=30)
    state_file = tmp_path / "continuous_state.json"

    def run_watcher(**kwargs):
        # A fresh State and Builds each time: what a restarted process has.
        return continuous.watch(
            house.landing,
            continuous.State(state_file),
            builds_for(house),
            schema="cont",
            poll=0.1,
            settle=0.2,
            **kwargs,
        )

    house.land(1)
    [first] = run_watcher(max_builds=1)
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

    # Batch 2 lands while it is stopped: the restart builds it, once, and
    # checks whole tables (a process's first build); batch 3 lands after it.
    house.land(2)
    spend = {}

    def after_build(figures):
        spend[len(spend) + 2] = house.scalar(
            "select sum(spend_micros) from {s}_ads.ads_spend_by_customer"
        )
        if len(spend) == 1:
            house.land(3)

    second, third = run_watcher(max_builds=2, after_build=after_build)
    landed = house.scalar("select count(*) from {s}_ods.ods_billing_events_raw")
    assert third["lines_total"]["landed"] == landed > second["lines_total"]["landed"] > lines_1
    assert third["lines_total"]["landed"] == sum(
        third["lines_total"][k] for k in ("valid", "quarantined", "held")
    )
    assert spend == {2: house.truth[1]["cost_micros"], 3: house.truth[2]["cost_micros"]}
    # Batch 3's checks ran after its models (a `dbt test` of what they wrote):
    # ADS was done before the last check.
    assert third["seconds"]["tests"] > 0
    assert max(end for _, end in third["spans"].values()) > third["landing_to_ads"]
    out = capsys.readouterr().out
    assert "batch 1:" in out and "checks of what it wrote" in out.split("batch 2: ", 1)[1]


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
