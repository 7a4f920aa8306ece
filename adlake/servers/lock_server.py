"""A ZooKeeper server on 127.0.0.1, for Hudi's lock when several writers share
a table on object storage (the profile's `lock_provider: zookeeper`).

    python -m adlake.servers.lock_server start  [--port 2181] [--dir .lake-locks]
    python -m adlake.servers.lock_server status|stop [--dir .lake-locks]

A lock file on s3a:// is not a lock (Hadoop 3.3's S3 client creates a file
"only if absent" as a check, then a write), so writers that share a bucket
take Hudi's lock in ZooKeeper instead. The server runs from the ZooKeeper jars
pyspark already ships: nothing to fetch. One node, its data under <dir>/data;
`start` returns once it answers on its port, with the process id in
<dir>/zookeeper.pid and its log in <dir>/logs/zookeeper.log; `stop` ends it
by its process id. For several machines, point the profile at your own
ZooKeeper ensemble instead.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
import time
from pathlib import Path

import pyspark

from adlake import ROOT
from adlake.servers import processes
from adlake.servers.processes import LOOPBACK

DEFAULT_PORT = 2181
MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain"
# The four-letter commands `status` and the tests use (ZooKeeper answers none
# unless listed).
COMMANDS = "ruok,stat,srvr"


class LockServerError(Exception):
    pass


class Files(processes.ServerFiles):
    def __init__(self, root: Path) -> None:
        super().__init__(root, "zookeeper")

    @property
    def config(self) -> Path:
        return self.root / "zoo.cfg"


def default_dir() -> Path:
    return ROOT / ".lake-locks"


def classpath() -> str:
    """pyspark's jars: ZooKeeper's server and client, and their logging."""
    jars = Path(pyspark.__file__).parent / "jars"
    if not list(jars.glob("zookeeper-[0-9]*.jar")):
        raise LockServerError(f"no ZooKeeper jar in {jars}: reinstall pyspark (make setup)")
    return str(jars / "*")


def _config(files: Files, port: int) -> str:
    conf = {
        "tickTime": "2000",
        "dataDir": str(files.root / "data"),
        "clientPort": str(port),
        "clientPortAddress": LOOPBACK,
        # Its HTTP admin server would take port 8080 on every interface.
        "admin.enableServer": "false",
        "4lw.commands.whitelist": COMMANDS,
    }
    return "".join(f"{key}={value}\n" for key, value in conf.items())


def start(port: int = DEFAULT_PORT, directory: Path | None = None, timeout: float = 60) -> int:
    """Start the server; returns its process id once it answers."""
    files = Files((directory or default_dir()).resolve())
    running = status(files.root)
    if running and running["alive"]:
        raise LockServerError(
            f"a ZooKeeper server already runs from {files.root} (pid {running['pid']})"
        )
    if processes.port_open(port):
        raise LockServerError(f"port {port} is already in use on {LOOPBACK}")
    files.root.mkdir(parents=True, exist_ok=True)
    files.config.write_text(_config(files, port))
    cmd = [processes.java(), "-Xmx128m", "-cp", classpath(), MAIN_CLASS, str(files.config)]
    process = processes.spawn(cmd, dict(os.environ), files.log, cwd=files.root)
    files.pid.write_text(str(process.pid))
    state = {"pid": process.pid, "url": LOOPBACK, "port": port}
    files.state.write_text(json.dumps(state, indent=2) + "\n")
    deadline = time.monotonic() + timeout
    try:
        processes.wait_listening(process, port, files.log, timeout)
        # It listens, then answers `ruok`, before it serves: ready once
        # `srvr` gives its figures.
        while "Node count:" not in _answer(port, "srvr"):
            if time.monotonic() > deadline:
                raise processes.NotListening(
                    f"did not serve within {timeout:.0f} s; see {files.log}"
                )
            time.sleep(0.2)
    except processes.NotListening as exc:
        stop(files.root)
        raise LockServerError(f"the ZooKeeper server {exc}") from exc
    return process.pid


def _answer(port: int, command: str) -> str:
    try:
        return ask(port, command)
    except OSError:
        return ""


def stop(directory: Path | None = None, timeout: float = 30) -> None:
    files = Files((directory or default_dir()).resolve())
    processes.end_recorded(files.pid, timeout)


def status(directory: Path | None = None) -> dict | None:
    """What the server in `directory` serves and whether it is alive; None
    when none was started there."""
    files = Files((directory or default_dir()).resolve())
    return processes.recorded_state(files.state, files.pid, files.log)


def ask(port: int, command: str, host: str = LOOPBACK) -> str:
    """A four-letter command's answer (`stat`: its clients and node count)."""
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(command.encode())
        chunks = []
        while chunk := sock.recv(4096):
            chunks.append(chunk)
    return b"".join(chunks).decode()


def node_count(port: int) -> int:
    """The znodes the server holds (a Hudi lock leaves its table's path)."""
    match = re.search(r"^Node count: (\d+)$", ask(port, "srvr"), re.M)
    if match is None:
        raise LockServerError(f"ZooKeeper on port {port} gave no node count")
    return int(match.group(1))


def main(argv: list[str] | None = None) -> int:
    def started(args: argparse.Namespace) -> str:
        pid = start(args.port, args.dir)
        log = Files((args.dir or default_dir()).resolve()).log
        return f"ZooKeeper on {LOOPBACK}:{args.port}, pid {pid}, log {log}"

    return processes.server_command(
        argv,
        tool="lock_server",
        description="A ZooKeeper server on 127.0.0.1 for Hudi's lock",
        default_dir=default_dir(),
        default_port=DEFAULT_PORT,
        error=LockServerError,
        start=started,
        stop=stop,
        status=status,
    )


if __name__ == "__main__":
    sys.exit(main())
