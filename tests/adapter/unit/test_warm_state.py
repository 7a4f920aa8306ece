"""The pure parts of warm start (no Spark): which settings need another server,
what the state file and the client lock's registration hold, when the last dbt
process is taken for dead, and how warm_start is resolved."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.credentials import WARM_START_ENV_VAR, resolve_warm_start
from dbt.adapters.lakehouse.warm import state as warm_state
from dbt.adapters.lakehouse.warm.state import Registration, ServerState

SETTINGS = {
    "adapter": "0.1.0",
    "hudi_jar": "/jars/hudi.jar",
    "master": "local[*]",
    "spark_conf": {"spark.driver.memory": "4g", "spark.hadoop.fs.s3a.secret.key": "s3cr3t"},
}


def state(**fields) -> ServerState:
    values = {
        "pid": 101,
        "jvm_pid": 102,
        "port": 40001,
        "token": "tok",
        "fingerprint": "f" * 32,
        "started_at": "2026-01-01 00:00:00 UTC",
        "lake": "/lake",
    }
    return ServerState(**(values | fields))


# --- fingerprint ------------------------------------------------------------------


def test_the_same_settings_in_any_order_need_the_same_server():
    reordered = dict(reversed(list(SETTINGS.items())))
    reordered["spark_conf"] = dict(reversed(list(SETTINGS["spark_conf"].items())))
    assert warm_state.fingerprint(reordered) == warm_state.fingerprint(SETTINGS)


@pytest.mark.parametrize(
    "change",
    [
        {"master": "local[2]"},
        {"hudi_jar": "/other/hudi.jar"},
        {"adapter": "0.2.0"},
        {"spark_conf": {**SETTINGS["spark_conf"], "spark.driver.memory": "8g"}},
        {"spark_conf": {"spark.driver.memory": "4g"}},
    ],
)
def test_a_changed_jar_master_setting_or_adapter_needs_another_server(change):
    assert warm_state.fingerprint(SETTINGS | change) != warm_state.fingerprint(SETTINGS)


def test_the_fingerprint_does_not_carry_a_secret():
    assert "s3cr3t" not in warm_state.fingerprint(SETTINGS)
    assert len(warm_state.fingerprint(SETTINGS)) == 32


# --- the state file -----------------------------------------------------------------


def test_a_state_reads_back_what_was_written_privately(tmp_path):
    written = state(lake=str(tmp_path))
    warm_state.write_private(warm_state.state_path(tmp_path), written.to_json())
    assert warm_state.read_state(tmp_path) == written
    mode = stat.S_IMODE(warm_state.state_path(tmp_path).stat().st_mode)
    assert mode == 0o600  # it holds the server's token
    assert [p.name for p in tmp_path.iterdir()] == [warm_state.STATE_FILE]  # no temp file left


@pytest.mark.parametrize(
    "text",
    ["", "{", "not json", '{"pid": 1}', '{"pid": "x", "jvm_pid": 2}', "[1, 2]"],
)
def test_an_incomplete_or_foreign_state_is_no_state(text):
    assert ServerState.parse(text) is None


def test_no_state_file_is_no_server(tmp_path):
    assert warm_state.read_state(tmp_path) is None


def test_a_server_removes_only_its_own_state(tmp_path):
    warm_state.write_private(
        warm_state.state_path(tmp_path), state(pid=7, lake=str(tmp_path)).to_json()
    )
    warm_state.remove_state(tmp_path, pid=8)  # an older server, stopping late
    assert warm_state.read_state(tmp_path) is not None
    warm_state.remove_state(tmp_path, pid=7)
    assert warm_state.read_state(tmp_path) is None


# --- the last dbt process ---------------------------------------------------------------


def test_a_move_request_is_taken_once_and_a_malformed_one_is_none(tmp_path):
    request = warm_state.MoveRequest(str(tmp_path / "next"), "f" * 32, 60.0, 900.0)
    warm_state.ask_move(tmp_path, request)
    path = warm_state.move_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert warm_state.take_move(tmp_path) == request
    assert not path.exists() and warm_state.take_move(tmp_path) is None
    path.write_text('{"lake": "x"}')
    assert warm_state.take_move(tmp_path) is None and not path.exists()


def test_a_registration_reads_back():
    registration = Registration(42, warm_state.RUNNING, 900.0, "2026-01-01 00:00:00 UTC")
    assert Registration.parse(registration.to_json()) == registration
    assert Registration.parse("pid 42, since yesterday") is None  # a lake lock's text, say


@pytest.mark.parametrize(
    ("previous", "died"),
    [
        (None, False),  # the lake's first dbt process
        (Registration(42, warm_state.DONE, 900), False),
        (Registration(42, warm_state.RUNNING, 900), True),  # killed, or a statement in flight
        (Registration(os.getpid(), warm_state.RUNNING, 900), True),  # a reused pid
    ],
)
def test_a_process_that_never_said_done_left_a_statement_that_may_still_run(previous, died):
    assert warm_state.previous_client_died(previous) is died


# --- processes -------------------------------------------------------------------------------


def test_a_zombie_is_not_alive():
    child = subprocess.Popen(["true"])
    deadline = time.monotonic() + 10
    while processes.alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    # Dead, not yet reaped: kill(pid, 0) still finds it.
    os.kill(child.pid, 0)
    assert not processes.alive(child.pid)
    child.wait()
    assert processes.alive(os.getpid())


def test_a_port_nobody_listens_on_does_not_answer():
    assert not warm_state.port_answers(warm_state.free_port(), timeout=0.5)


# --- warm_start -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "env", "resolved"),
    [
        (None, None, False),  # the default, in a process calling dbt (this one)
        (False, None, False),
        (True, None, True),
        (None, "0", False),
        (True, "false", False),  # the variable wins both ways
        (False, "1", True),
        (False, "TRUE", True),
    ],
)
def test_warm_start_the_profile_then_the_variable(monkeypatch, profile, env, resolved):
    if env is None:
        monkeypatch.delenv(WARM_START_ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(WARM_START_ENV_VAR, env)
    assert resolve_warm_start(profile) is resolved


@pytest.mark.parametrize(
    ("argv0", "main_module", "command_line"),
    [
        ("/venv/bin/dbt", None, True),
        ("/venv/bin/dbt.exe", None, True),
        ("/venv/lib/python3.11/site-packages/dbt/cli/main.py", "dbt.cli.main", True),
        ("/venv/bin/pytest", None, False),
        ("-c", None, False),
        ("/venv/bin/dbt-lakehouse-runner", None, False),
    ],
)
def test_warm_start_by_default_on_the_dbt_command_line_only(
    monkeypatch, argv0, main_module, command_line
):
    import types

    monkeypatch.delenv(WARM_START_ENV_VAR, raising=False)
    monkeypatch.setattr(sys, "argv", [argv0, "run"])
    main = types.ModuleType("__main__")
    main.__spec__ = types.SimpleNamespace(name=main_module) if main_module else None
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert resolve_warm_start(None) is command_line
    assert resolve_warm_start(True) is True


def test_a_warm_start_variable_that_is_no_switch_is_an_error(monkeypatch):
    monkeypatch.setenv(WARM_START_ENV_VAR, "sometimes")
    with pytest.raises(DbtRuntimeError, match=WARM_START_ENV_VAR):
        resolve_warm_start(None)


def test_warm_start_fields_of_a_session_profile(monkeypatch):
    from dbt.adapters.lakehouse.credentials import LakehouseCredentials

    monkeypatch.delenv(WARM_START_ENV_VAR, raising=False)
    creds = LakehouseCredentials.from_dict(
        {"method": "session", "schema": "s", "warm_start": False, "warm_idle_timeout": 30}
    )
    assert (creds.warm_start, creds.warm_idle_timeout) == (False, 30)
    assert "warm_start" in creds._connection_keys()  # dbt debug shows it
    default = LakehouseCredentials.from_dict({"method": "session", "schema": "s"})
    # (off: this process calls dbt rather than being the dbt command line)
    assert (default.warm_start, default.warm_idle_timeout) == (False, 900)


def test_a_warm_idle_timeout_must_be_positive(monkeypatch):
    from dbt.adapters.lakehouse.credentials import LakehouseCredentials

    with pytest.raises(DbtRuntimeError, match="warm_idle_timeout"):
        LakehouseCredentials.from_dict({"method": "session", "schema": "s", "warm_idle_timeout": 0})
