"""The cap on warm servers (warm/registry.py), with stand-in servers: real
processes (`sleep`) with the state files and client locks a lake's server and
its dbt processes keep. The real servers under the cap:
functional/warm_start/test_warm_cap.py."""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from pathlib import Path

import pytest

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.warm import registry as warm_registry
from dbt.adapters.lakehouse.warm import state as warm_state


@pytest.fixture
def registry(tmp_path, monkeypatch):
    monkeypatch.setenv(warm_registry.REGISTRY_ENV, str(tmp_path / "registry"))
    monkeypatch.setenv(warm_registry.CAP_ENV, "3")
    processes: list[subprocess.Popen] = []
    yield processes
    for process in processes:
        process.kill()
        process.wait()


def stand_in(processes: list[subprocess.Popen], lake: Path, used: float) -> warm_state.ServerState:
    """A 'server' of `lake` (a sleeping process, as its Python and its JVM),
    registered, its lake last used at `used` (the client lock's time)."""
    lake.mkdir(parents=True)
    process = subprocess.Popen(["sleep", "600"])
    processes.append(process)
    state = warm_state.ServerState(process.pid, process.pid, 1, "t", "f", "now", str(lake))
    warm_state.write_private(warm_state.state_path(lake), state.to_json())
    lock = warm_state.client_lock_path(lake)
    lock.write_text("{}")
    os.utime(lock, (used, used))
    warm_registry.add(process.pid, lake, 4096)
    return state


def stopped(state: warm_state.ServerState) -> bool:
    return processes.wait_gone([state.pid, state.jvm_pid], 10)


@pytest.mark.parametrize(
    ("text", "mib"), [("4g", 4096), ("512m", 512), ("2048", 2048), ("1G", 1024), ("1t", 1048576)]
)
def test_heap_in_spark_notation(text, mib):
    assert warm_registry.heap_mb({"spark.driver.memory": text}) == mib


def test_the_cap_is_the_setting_within_half_the_machine_memory(monkeypatch):
    monkeypatch.setenv(warm_registry.CAP_ENV, "5")
    monkeypatch.setattr(warm_registry, "machine_memory_mb", lambda: 24 * 1024)
    assert warm_registry.cap(4096) == 4  # 18 GiB of heaps at the most
    assert warm_registry.cap(1024) == 5
    monkeypatch.setattr(warm_registry, "machine_memory_mb", lambda: 16 * 1024)
    assert warm_registry.cap(4096) == 3
    monkeypatch.setattr(warm_registry, "machine_memory_mb", lambda: 4 * 1024)
    assert warm_registry.cap(4096) == 1  # one, however small the machine
    monkeypatch.delenv(warm_registry.CAP_ENV)
    monkeypatch.setattr(warm_registry, "machine_memory_mb", lambda: 64 * 1024)
    assert warm_registry.cap(4096) == warm_registry.DEFAULT_CAP


def test_a_fourth_server_stops_the_least_recently_used_idle_one(registry, tmp_path):
    now = time.time()
    oldest_in_use = stand_in(registry, tmp_path / "a", now - 300)
    old = stand_in(registry, tmp_path / "b", now - 200)
    recent = stand_in(registry, tmp_path / "c", now - 100)
    # A dbt process holds the oldest lake's client lock: it is not idle.
    with warm_state.client_lock_path(tmp_path / "a").open("a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with warm_registry.locked():
            room, gone = warm_registry.make_room(tmp_path / "d", 4096)
    assert room
    assert gone == [f"pid {old.pid}, lake {tmp_path / 'b'}"]
    assert stopped(old)
    assert not warm_state.state_path(tmp_path / "b").exists()
    assert processes.alive(oldest_in_use.pid) and processes.alive(recent.pid)
    assert {e.pid for e in warm_registry.running()} == {oldest_in_use.pid, recent.pid}


def test_no_room_when_every_server_is_in_use(registry, tmp_path):
    states = [stand_in(registry, tmp_path / name, time.time()) for name in "abc"]
    locks = [warm_state.client_lock_path(tmp_path / name).open("a+") for name in "abc"]
    try:
        for lock in locks:
            fcntl.flock(lock, fcntl.LOCK_EX)
        room, gone = warm_registry.make_room(tmp_path / "d", 4096)
    finally:
        for lock in locks:
            lock.close()
    assert not room and gone == []
    assert all(processes.alive(s.pid) for s in states)
    # The lake's own server, restarted, does not count against it.
    room, gone = warm_registry.make_room(tmp_path / "a", 4096)
    assert room and gone == []


def test_a_dead_servers_file_is_removed_when_counted(registry, tmp_path):
    state = stand_in(registry, tmp_path / "a", time.time())
    for process in registry:
        process.kill()
        process.wait()
    assert warm_registry.running() == []
    assert not (warm_registry.registry() / f"{state.pid}.json").exists()
