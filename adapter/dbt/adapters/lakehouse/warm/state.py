"""What a lake's warm Spark server and its clients share on disk, and the
rules they read it by. No Spark here: the client, the server and the
`stop`/`status` command all use it, and the unit tests test it alone.

In the lake folder:

- `.lakehouse-server.json` (mode 0600): the live server's process ids, port,
  token and the fingerprint of the settings it was started with. Written
  atomically by the server once it serves; removed when it stops.
- `.lakehouse-client.lock`: flock-ed by the one dbt process using the lake,
  for its whole life. Its text is that process's registration: its pid,
  `running` while it may have a statement in flight, `done` once it ended
  cleanly, and the idle timeout of its profile (the server's current one).
- `.lakehouse-server.log`: the server's output (the last server's in `.1`).
- `.lakehouse-server.move` (mode 0600): a dbt process's request that the
  server it started here move to another lake (MoveRequest), which the
  server takes and removes; the other lake's state file is its answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dbt.adapters.lakehouse.processes import alive, wait_gone

STATE_FILE = ".lakehouse-server.json"
CLIENT_LOCK_FILE = ".lakehouse-client.lock"
LOG_FILE = ".lakehouse-server.log"
MOVE_FILE = ".lakehouse-server.move"
LOOPBACK = "127.0.0.1"
# The gRPC header the server's interceptor (java/WarmServerGuard.java) checks.
TOKEN_HEADER = "x-lakehouse-token"
STOP_COMMAND = "dbt-lakehouse-server stop --lake-dir {lake}"

RUNNING = "running"
DONE = "done"


def state_path(lake: Path) -> Path:
    return lake / STATE_FILE


def client_lock_path(lake: Path) -> Path:
    return lake / CLIENT_LOCK_FILE


def log_path(lake: Path) -> Path:
    return lake / LOG_FILE


def move_path(lake: Path) -> Path:
    return lake / MOVE_FILE


def stop_command(lake: Path) -> str:
    return STOP_COMMAND.format(lake=lake)


def fingerprint(settings: dict[str, Any]) -> str:
    """A digest of what a server was started with: a client whose profile
    differs (jar, master, spark_conf, adapter version, Python) needs another.
    A digest, so that spark_conf's secrets are not written out again."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ServerState:
    """The contents of the state file."""

    pid: int  # the server's Python process
    jvm_pid: int  # its Spark JVM
    port: int
    token: str
    fingerprint: str
    started_at: str
    lake: str

    @classmethod
    def parse(cls, text: str) -> ServerState | None:
        """None for anything but a complete state (a file being replaced is
        never half-read: it is renamed into place)."""
        try:
            data = json.loads(text)
            return cls(
                pid=int(data["pid"]),
                jvm_pid=int(data["jvm_pid"]),
                port=int(data["port"]),
                token=str(data["token"]),
                fingerprint=str(data["fingerprint"]),
                started_at=str(data["started_at"]),
                lake=str(data["lake"]),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"


def read_state(lake: Path) -> ServerState | None:
    try:
        return ServerState.parse(state_path(lake).read_text())
    except OSError:
        return None


def write_private(path: Path, text: str) -> None:
    """Write a 0600 file through a temporary one renamed into place."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def remove_state(lake: Path, pid: int) -> None:
    """Remove the state file if it is still the one of server `pid`."""
    state = read_state(lake)
    if state is not None and state.pid == pid:
        state_path(lake).unlink(missing_ok=True)


@dataclass(frozen=True)
class Registration:
    """The text of the client lock: the last dbt process that used the lake."""

    pid: int
    status: str  # RUNNING or DONE
    idle_timeout: float
    since: str = ""

    @classmethod
    def parse(cls, text: str) -> Registration | None:
        try:
            data = json.loads(text)
            return cls(
                int(data["pid"]),
                str(data["status"]),
                float(data["idle_timeout"]),
                str(data.get("since", "")),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def to_json(self) -> str:
        return json.dumps(asdict(self)) + "\n"


@dataclass(frozen=True)
class MoveRequest:
    """A dbt process's request that the server on a lake move to `lake`, for
    the profile whose settings have `fingerprint` (warm_client._move_server_here)."""

    lake: str
    fingerprint: str
    lake_lock_timeout: float
    idle_timeout: float

    def to_json(self) -> str:
        return json.dumps(asdict(self)) + "\n"


def ask_move(server_lake: Path, request: MoveRequest) -> None:
    write_private(move_path(server_lake), request.to_json())


def take_move(server_lake: Path) -> MoveRequest | None:
    """The request waiting for the server on `server_lake`, removed; None: none."""
    path = move_path(server_lake)
    try:
        text = path.read_text()
    except OSError:
        return None
    path.unlink(missing_ok=True)
    try:
        data = json.loads(text)
        return MoveRequest(
            str(data["lake"]),
            str(data["fingerprint"]),
            float(data["lake_lock_timeout"]),
            float(data["idle_timeout"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


def previous_client_died(previous: Registration | None) -> bool:
    """Whether the last dbt process on the lake may have left a statement
    running on the server: it registered `running` and never marked itself
    `done` (killed, or ended with a statement in flight).

    Asked while holding the client lock, which a dbt process keeps until it
    ends: the process that wrote `running` has ended (were its pid alive, it
    would be a reused one), so its pid needs no look."""
    return previous is not None and previous.status == RUNNING


def now_utc() -> str:
    return f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC"


def terminate(state: ServerState, timeout: float = 30, graceful: bool = True) -> None:
    """Stop a server: SIGTERM (it stops Spark and its JVM), then SIGKILL to
    both processes when it does not end in time; at once without `graceful`
    (a statement left running by a dead client must not get to finish while
    Spark stops). Removes its state file."""
    if graceful:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(state.pid, signal.SIGTERM)
    if not graceful or not wait_gone([state.pid, state.jvm_pid], timeout):
        for pid in (state.pid, state.jvm_pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        wait_gone([state.pid, state.jvm_pid], 10)
    remove_state(Path(state.lake), state.pid)


def port_answers(port: int, timeout: float = 1.0) -> bool:
    try:
        socket.create_connection((LOOPBACK, port), timeout=timeout).close()
        return True
    except OSError:
        return False


def usable(state: ServerState) -> bool:
    """Both processes alive and the port answering."""
    return alive(state.pid) and alive(state.jvm_pid) and port_answers(state.port)


def free_port() -> int:
    """A port free on loopback now (Spark binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])
