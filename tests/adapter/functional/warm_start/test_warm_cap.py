"""Six small projects built one after the other, each on a lake of its own with
warm start on (every dbt command a process of its own, as a user's are),
leave at most three warm servers: the least recently used idle one is
stopped when a fourth is needed (warm/registry.py). A lake folder removed
stops its server; with every server in use, a run's Spark runs in-process.
The registry is the test's own (LAKEHOUSE_WARM_REGISTRY), so the servers of
other test processes do not count."""

from __future__ import annotations

import fcntl
import re
import shutil
import time

import pytest

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.warm import registry as warm_registry
from dbt.adapters.lakehouse.warm import state as warm_state
from tests.warm_lake import WarmLake

PROJECTS = 6
CAP = 3
ONE_ROW = "{{ config(materialized='table') }}\nselect 1 as id, 'x' as value"


@pytest.fixture
def lakes(tmp_path, monkeypatch):
    monkeypatch.setenv(warm_registry.REGISTRY_ENV, str(tmp_path / "registry"))
    monkeypatch.setenv(warm_registry.CAP_ENV, str(CAP))
    made = []
    for i in range(1, PROJECTS + 1):
        lake = WarmLake(tmp_path / f"p{i}", {"one_row": ONE_ROW})
        # Small heaps: the cap is the setting's, not the machine's memory.
        lake.profile(spark_conf={"spark.driver.memory": "1g"})
        made.append(lake)
    try:
        yield made
    finally:
        for lake in made:
            lake.stop_all()


def running_lakes() -> set[str]:
    return {entry.lake for entry in warm_registry.running()}


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:g} s")
        time.sleep(0.1)


def test_six_projects_leave_three_warm_servers_the_least_recently_used_stopped(lakes):
    states = []
    for i, lake in enumerate(lakes):
        code, output = lake.dbt("run")
        assert code == 0, output
        state = lake.state()
        assert state is not None and warm_state.usable(state), output
        states.append(state)
        assert len(running_lakes()) == min(i + 1, CAP)
        if i >= CAP:
            # The one built CAP projects before is the least recently used.
            oldest = lakes[i - CAP]
            assert re.search(
                rf"Stopped the least recently used idle warm Spark server \(pid "
                rf"{states[i - CAP].pid}, lake {re.escape(str(oldest.lake.resolve()))}\)",
                output,
            ), output
            assert processes.wait_gone([states[i - CAP].pid, states[i - CAP].jvm_pid], 30)
    assert running_lakes() == {str(lake.lake.resolve()) for lake in lakes[-CAP:]}

    # A lake folder removed stops its server at once (it looks each second).
    last = states[-1]
    shutil.rmtree(lakes[-1].lake)
    wait_for(lambda: processes.wait_gone([last.pid, last.jvm_pid], 0), 60, "the server's end")
    assert str(lakes[-1].lake.resolve()) not in running_lakes()

    # Every server in use (a dbt process holds each lake's client lock): the
    # next project's run starts none, and runs its Spark in-process.
    code, output = lakes[-1].dbt("run")  # its lake anew: CAP servers again
    assert code == 0, output
    held = [warm_state.client_lock_path(lake.lake).open("a+") for lake in lakes[-CAP:]]
    try:
        for handle in held:
            fcntl.flock(handle, fcntl.LOCK_EX)
        code, output = lakes[0].dbt("run")
    finally:
        for handle in held:
            handle.close()
    assert code == 0, output
    assert "This run's Spark runs in-process: 3 warm Spark servers run" in output, output
    assert "Starting the lake's warm Spark server" not in output
    assert str(lakes[0].lake.resolve()) not in running_lakes()
    assert len(running_lakes()) == CAP
