"""Continuous mode (adlake.runner.continuous): each batch is built as it lands, and
a restart builds only what landed since the last completed build."""

from __future__ import annotations

import signal

import pytest

from adlake.runner import continuous
from adlake.runner.warehouse import Builds, work_args


def builds_for(house) -> Builds:
    # As continuous.main() builds: DWD's compactions planned by the build, run after it.
    return Builds(work_args(house.root, house.profiles), compact_between_builds=True)


def test_builds_each_batch_as_it_lands_and_resumes_after_a_restart(
    warehouse_factory, tmp_path, capsys
):
    house = warehouse_factory("cont", seed=5, events=400, batches=2, accounts=30)
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

    # Batch 2 lands while it is stopped: the restart builds it, once.
    house.land(2)
    [second] = run_watcher(max_builds=1)
    landed = house.scalar("select count(*) from {s}_ods.ods_billing_events_raw")
    assert second["lines_total"]["landed"] == landed > lines_1
    assert second["lines_total"]["landed"] == sum(
        second["lines_total"][k] for k in ("valid", "quarantined", "held")
    )
    assert (
        house.scalar("select sum(spend_micros) from {s}_ads.ads_spend_by_customer")
        == house.truth[-1]["cost_micros"]
    )
    assert "batch 1:" in capsys.readouterr().out


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
