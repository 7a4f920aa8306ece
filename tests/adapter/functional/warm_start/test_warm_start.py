"""Warm start: real dbt processes on one lake share its warm Spark server.

Every dbt command here is a process of its own (`LAKEHOUSE_WARM_START=1`),
as a user's are, on one lake whose server the tests share where they can:
the tests run in file order and each leaves the lake as the next expects,
but each starts what it needs when run alone. The table is read back through
the lake's server (this process cannot open the lake's Derby metastore while
the server has it). The module fixture stops every server any test started,
by pid.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.warm import state as warm_state
from tests.warm_lake import BIN, WarmLake

IDS = 200
# Batch b gives every id the value id * b (b is the precombine key too);
# pause_ms slows each row, so that a run can be caught while it writes. Spark
# would drop `coalesce(reflect(..), '') is not null` as always true, and run a
# filter without `id` once, before the explode; reflect gives a void method's result as 'null'.
EVENTS = """
{{ config(materialized='incremental', unique_key='id', precombine_key='batch') }}
select id, {{ var('batch') }} as batch, id * {{ var('batch') }} as value
from (select explode(sequence(1, %d)) as id)
where reflect('java.lang.Thread', 'sleep', cast({{ var('pause_ms', 0) }} + 0 * id as bigint)) = 'null'
"""
PAUSE_MS = 60
VALUES = "select count(*), sum(value), max(batch), count(distinct id) from warm.events"


def expected(batch: int) -> tuple[int, int, int, int]:
    return IDS, sum(i * batch for i in range(1, IDS + 1)), batch, IDS


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> Iterator[WarmLake]:
    lake = WarmLake(tmp_path_factory.mktemp("warm_start"), {"events": EVENTS % IDS})
    try:
        yield lake
    finally:
        lake.stop_all()


def gone(pid: int) -> bool:
    """os.kill(pid, 0) fails, or the process is a zombie (dead, not reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return not processes.alive(pid)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:g} s")
        time.sleep(0.1)


def kill_point(process: subprocess.Popen[str]) -> str:
    """Wait until the run starts the model, whose query then sleeps PAUSE_MS
    a row (12 s in all), and a few seconds more: it is writing. Returns the
    output so far."""
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        if "START sql incremental model warm.events" in line:
            break
    else:
        pytest.fail(f"the run ended before the model started:\n{''.join(seen)}")
    time.sleep(4)
    assert process.poll() is None, "the run ended before the kill"
    return "".join(seen)


def test_a_second_command_uses_the_server_the_first_started(warm):
    code, first = warm.run(1)
    assert code == 0, first
    assert "Starting the lake's warm Spark server" in first
    started = warm.state()
    assert started is not None and warm_state.usable(started)

    # With no Java to be found, the second command could not start a JVM.
    code, second = warm.dbt(
        "run", "--vars", '{"batch": 2}', env=warm.env(JAVA_HOME=str(warm.root / "no-java"))
    )
    assert code == 0, second
    assert "Starting the lake's warm Spark server" not in second
    again = warm.state()
    assert again is not None
    assert (again.pid, again.jvm_pid, again.port) == (started.pid, started.jvm_pid, started.port)
    assert warm.query(VALUES) == expected(2)
    # A project of Hudi models alone: no other format's jar or catalog loaded.
    assert warm.query("set spark.lakehouse.tableFormats")[1] == "hudi"
    assert "iceberg" not in warm.query("set spark.jars")[1]
    # The second ended cleanly: the next one has nothing to recover.
    registration = warm_state.Registration.parse(warm_state.client_lock_path(warm.lake).read_text())
    assert registration is not None and registration.status == warm_state.DONE


# A program calling dbt in-process for several projects, one after the other.
# At the end it says whether the first lake is free for another dbt process
# (its client lock: flock locks of two opened files of one process exclude
# each other too).
IN_PROCESS = """
import fcntl, json, sys
from pathlib import Path
from dbt.cli.main import dbtRunner
from dbt.adapters.lakehouse.warm import state as warm_state

for project in sys.argv[1:]:
    where = ["--project-dir", project, "--profiles-dir", project]
    assert dbtRunner().invoke(["run", "--vars", '{"batch": 3}', *where]).success
    shown = dbtRunner().invoke(["show", "--inline", %r, *where]).result
    rows = [[int(value) for value in row] for row in shown.results[0].agate_table.rows]
    print("VALUES", json.dumps(rows))
with warm_state.client_lock_path(Path(sys.argv[1]).parent / "lake").open("a+") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("FIRST LAKE FREE")
"""


def in_process(projects: list[WarmLake], env: dict[str, str]) -> tuple[str, list]:
    """IN_PROCESS on `projects`, in a Python process of its own: its output
    (it must succeed) and the values it read on each project."""
    process = subprocess.run(
        [str(BIN / "python"), "-c", IN_PROCESS % VALUES] + [str(lake.project) for lake in projects],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    for lake in projects:
        lake.remember()
    output = process.stdout + process.stderr
    assert process.returncode == 0, output
    values = [
        json.loads(line.split(" ", 1)[1])
        for line in output.splitlines()
        if line.startswith("VALUES ")
    ]
    return output, values


def test_a_process_running_a_second_lake_runs_it_on_its_own_spark_not_a_new_server(warm, tmp_path):
    """With warm start on, a process calling dbt for several projects uses a
    lake's server when one runs, and runs a lake without one on its own Spark
    (which moves from lake to lake) rather than start a server per lake."""
    started = warm.serving()
    second = WarmLake(tmp_path / "second", {"events": EVENTS % IDS})
    try:
        output, values = in_process([warm, second], warm.env())
        assert "Starting the lake's warm Spark server" not in output
        assert "This run's Spark runs in-process: this process calls dbt in-process" in output, (
            output
        )
        assert values == [[list(expected(3))]] * 2, output
        # The first lake's server served it and serves on; the second has none.
        again = warm.state()
        assert again is not None and (again.pid, again.port) == (started.pid, started.port)
        assert warm_state.read_state(second.lake) is None
        # The first lake was let go of when the process moved on, as a move
        # of its own Spark lets go of a lake.
        assert "FIRST LAKE FREE" in output, output
    finally:
        second.stop_all()


def test_a_process_that_started_a_server_moves_it_to_its_next_lake(tmp_path):
    """A process calling dbt in-process starts a warm server only for a
    profile its own Spark cannot serve (here another heap than the one its
    JVM was launched with, for an earlier project); for the next lake of
    that profile, the server moves there (its Spark context and Connect
    service kept) rather than another JVM start. Each lake's table is
    recorded in that lake's own catalog and folder."""
    home = WarmLake(tmp_path / "home", {"events": EVENTS % IDS})
    home.profile(warm_start=False)
    first = WarmLake(tmp_path / "first", {"events": EVENTS % IDS})
    second = WarmLake(tmp_path / "second", {"events": EVENTS % IDS})
    for lake in (first, second):
        lake.profile(warm_start=True, spark_conf={"spark.driver.memory": "1536m"})
    env = {k: v for k, v in first.env().items() if k != "LAKEHOUSE_WARM_START"}
    try:
        output, values = in_process([home, first, second], env)
        assert output.count("Starting the lake's warm Spark server") == 1, output
        assert "Moving the warm Spark server this process started" in output, output
        assert values == [[list(expected(3))]] * 3, output
        # The server serves the second lake now, and the first has none.
        state = second.state()
        assert state is not None and warm_state.usable(state), output
        assert state.lake == str(second.lake.resolve())
        assert warm_state.read_state(first.lake) is None
        # Each lake holds its own table, in its own catalog folder, at its own
        # location (the same schema and name in all three).
        for lake in (home, first, second):
            entry = lake.lake / "catalog" / "warm" / "events.json"
            assert entry.is_file(), sorted(p.name for p in lake.lake.iterdir())
            assert str(lake.lake.resolve() / "warehouse") in entry.read_text()
            assert (lake.lake / "warehouse" / "warm.db" / "events" / ".hoodie").is_dir()
        # A dbt command of its own on the second lake uses the moved server.
        code, shown = second.dbt("show", "--inline", VALUES, env=env)
        assert code == 0 and "Starting the lake's warm Spark server" not in shown, shown
        assert second.query(VALUES) == expected(3)
    finally:
        first.stop_all()
        second.stop_all()


def test_a_process_with_warm_start_off_waits_then_names_the_server(warm):
    state = warm.serving()
    began = time.monotonic()
    code, output = warm.dbt("debug", env=warm.env(LAKEHOUSE_WARM_START="0"))
    assert code != 0
    assert time.monotonic() - began >= 5  # lake_lock_timeout, then the message
    assert f"in use by another process (the lake's warm Spark server, pid {state.pid}" in output
    assert f"dbt-lakehouse-server stop --lake-dir {warm.lake}" in output
    assert warm_state.usable(state)  # it did not disturb the server


def test_a_server_killed_during_a_write_fails_the_run_clearly_and_the_rerun_is_exact(warm):
    killed = warm.serving()
    run = warm.start("run", "--vars", json.dumps({"batch": 3, "pause_ms": PAUSE_MS}))
    before = kill_point(run)
    os.kill(killed.jvm_pid, signal.SIGKILL)
    began = time.monotonic()
    output = before + run.communicate(timeout=120)[0]
    assert run.returncode != 0, output
    assert time.monotonic() - began < 60  # not the Connect client's 10 minutes of retries
    assert (
        f"The lake's warm Spark server (pid {killed.pid}, JVM pid {killed.jvm_pid}) "
        "stopped during this statement" in output
    ), output
    assert "Traceback" not in output and "\tat org.apache" not in output

    code, rerun = warm.run(3)
    assert code == 0, rerun
    now = warm.state()
    assert now is not None and now.pid != killed.pid
    assert gone(killed.pid) and gone(killed.jvm_pid)
    assert warm.query(VALUES) == expected(3)


def test_a_dbt_process_killed_during_a_write_makes_the_next_start_a_new_server(warm):
    old = warm.serving()
    run = warm.start("run", "--vars", json.dumps({"batch": 4, "pause_ms": PAUSE_MS}))
    kill_point(run)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    # Its registration says it may have left a statement running.
    registration = warm_state.Registration.parse(warm_state.client_lock_path(warm.lake).read_text())
    assert registration is not None
    assert (registration.pid, registration.status) == (run.pid, warm_state.RUNNING)
    assert warm_state.usable(old)  # the server outlived its client

    code, rerun = warm.run(4)
    assert code == 0, rerun
    assert re.search(
        rf"Stopping the lake's warm Spark server \(pid {old.pid}\): the last dbt process on "
        rf"this lake \(pid {run.pid}\) ended with a statement running",
        rerun,
    ), rerun
    new = warm.state()
    assert new is not None and new.pid != old.pid
    assert gone(old.pid) and gone(old.jvm_pid)
    assert warm.query(VALUES) == expected(4)


def test_an_idle_server_stops_by_itself(warm):
    state = warm.serving()
    # The last dbt process's idle timeout is the server's: 2 s from its end.
    warm.profile(warm_idle_timeout=2)
    try:
        code, output = warm.dbt("debug")
        assert code == 0, output
        # The same server (the timeout is no start setting), which may be gone already.
        assert "Starting the lake's warm Spark server" not in output
    finally:
        warm.profile()
    wait_for(lambda: gone(state.pid) and gone(state.jvm_pid), 90, "the idle server's end")
    assert not warm_state.state_path(warm.lake).exists()


def test_the_stop_command_leaves_no_process(warm):
    state = warm.serving()
    server = [str(BIN / "dbt-lakehouse-server")]
    status = subprocess.run(
        [*server, "status", "--lake-dir", str(warm.lake)], capture_output=True, text=True
    )
    assert status.returncode == 0, status.stderr
    assert f"pid:     {state.pid} (JVM {state.jvm_pid})" in status.stdout
    assert f"127.0.0.1:{state.port}" in status.stdout

    stop = subprocess.run(
        [*server, "stop", "--lake-dir", str(warm.lake)], capture_output=True, text=True
    )
    assert stop.returncode == 0, stop.stdout + stop.stderr
    assert gone(state.pid) and gone(state.jvm_pid)
    assert not warm_state.state_path(warm.lake).exists()
    after = subprocess.run([*server, "status", "--lake-dir", str(warm.lake)], capture_output=True)
    assert after.returncode == 3
