"""The processes the server tools start (servers, cluster daemons), and
stopping one by its process id.

A process started here is remembered, so that stopping it also reaps it: a
test starts and stops its server in one Python process, and an unreaped
child would linger as a zombie. A process another command started (`start`
in one shell, `stop` in the next) is stopped by its id alone.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

LOOPBACK = "127.0.0.1"

_children: dict[int, subprocess.Popen] = {}


def spawn(
    cmd: list[str], env: dict[str, str], log: Path, cwd: Path | None = None
) -> subprocess.Popen:
    """Start `cmd` with its output in `log` (created with its folder)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        process = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
    _children[process.pid] = process
    return process


def alive(pid: int) -> bool:
    child = _children.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def end(pid: int, timeout: float) -> None:
    """SIGTERM (a JVM runs its shutdown hooks: Spark stops its jobs, a worker
    its executors), then SIGKILL if it is still there after `timeout` seconds."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        _children.pop(pid, None)
        return
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if alive(pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    child = _children.pop(pid, None)
    if child is not None:
        child.wait()


@dataclass(frozen=True)
class ServerFiles:
    """A server's folder: <name>.pid, <name>.json (what it serves) and
    logs/<name>.log."""

    root: Path
    name: str

    @property
    def pid(self) -> Path:
        return self.root / f"{self.name}.pid"

    @property
    def state(self) -> Path:
        return self.root / f"{self.name}.json"

    @property
    def log(self) -> Path:
        return self.root / "logs" / f"{self.name}.log"


class NotListening(Exception):
    """A server started here exited, or did not listen in time."""


def wait_listening(
    process: subprocess.Popen, port: int, log: Path, timeout: float, host: str = LOOPBACK
) -> None:
    """Return once `process` accepts connections on host:port; NotListening
    (naming its log) if it exits first or the time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise NotListening(f"exited with {process.returncode}; see {log}")
        if port_open(port, host):
            return
        time.sleep(0.2)
    raise NotListening(f"did not listen on {host}:{port} within {timeout:.0f} s; see {log}")


def java() -> str:
    """The java of JAVA_HOME, else the one on the PATH."""
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else "java"


def end_recorded(pid_file: Path, timeout: float) -> None:
    """Stop the process whose id `pid_file` holds (see end), and forget it."""
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text())
    pid_file.unlink()
    end(pid, timeout)


def recorded_state(state_file: Path, pid_file: Path, log: Path) -> dict | None:
    """A server's state file, with whether its process is alive and where its
    log is; None when none was started (or it was stopped)."""
    if not state_file.exists() or not pid_file.exists():
        return None
    state = json.loads(state_file.read_text())
    state["alive"] = alive(int(pid_file.read_text()))
    state["log"] = str(log)
    return dict(state)


def port_open(port: int, host: str = LOOPBACK) -> bool:
    """Whether something accepts connections on host:port (a server is up)."""
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((host, port)) == 0


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (a server's settings with secrets)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


def server_command(
    argv: list[str] | None,
    *,
    tool: str,
    description: str,
    default_dir: Path,
    default_port: int,
    error: type[Exception],
    start: Callable[[argparse.Namespace], str],
    stop: Callable[[Path | None], None],
    status: Callable[[Path | None], dict | None],
    options: Callable[[argparse.ArgumentParser], None] | None = None,
) -> int:
    """The `start | stop | status` command line of a server kept in a folder
    of its own (--dir, --port, and the tool's `options`). `start` starts it
    from the parsed arguments and returns the line saying where it serves;
    `status` prints the recorded state and exits 3 when no server is alive;
    the tool's `error` is printed, exit 1."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("action", choices=["start", "stop", "status"])
    parser.add_argument("--dir", type=Path, help=f"the server's folder (default {default_dir})")
    parser.add_argument("--port", type=int, default=default_port)
    if options is not None:
        options(parser)
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            print(start(args))
        elif args.action == "stop":
            stop(args.dir)
        else:
            state = status(args.dir)
            print(
                json.dumps(state, indent=2) if state else f"no server in {args.dir or default_dir}"
            )
            return 0 if state and state["alive"] else 3
    except error as exc:
        print(f"{tool}: {exc}", file=sys.stderr)
        return 1
    return 0
