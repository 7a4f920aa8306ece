"""The PostgreSQL server: its binaries, initdb, its process (started,
awaited, found by pid) and SQL run as its superuser through psql."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

from adlake.servers.catalog.accounts import Account, chown, run_as, service_account
from adlake.servers.catalog.layout import DATABASE, HOST, CatalogError, Layout, layout, read_state

INSTALL_HINT = "apt-get update && apt-get install -y postgresql"
SERVER_BINARIES = ("initdb", "pg_ctl", "postgres", "psql", "pg_isready")

# Server settings, rewritten on every start (the port may change).
SERVER_CONF = "lakehouse.conf"


def _version_key(path: Path):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path.parent.name)]


def find_bin_dir(pgdata: Path | None = None) -> Path:
    """The folder holding initdb, pg_ctl, postgres, psql and pg_isready.

    A cluster is tied to its major version: for an existing one, that
    version's binaries are preferred."""
    candidates: list[Path] = []
    major = None
    if pgdata is not None and (pgdata / "PG_VERSION").is_file():
        major = (pgdata / "PG_VERSION").read_text().strip()
        candidates.append(Path(f"/usr/lib/postgresql/{major}/bin"))
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)).parent)
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version_key, reverse=True)
    for folder in candidates:
        if all(os.access(folder / name, os.X_OK) for name in SERVER_BINARIES):
            return folder
    found = ", ".join(str(c) for c in candidates) or "none"
    wanted = f" (the cluster in {pgdata} is PostgreSQL {major})" if major else ""
    raise CatalogError(
        f"PostgreSQL's server binaries ({', '.join(SERVER_BINARIES)}) were not found{wanted}: "
        f"looked on PATH and in /usr/lib/postgresql/*/bin (candidates: {found}). "
        f"Install them with: {INSTALL_HINT}"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True


def alive(pid: int, pgdata: Path) -> bool:
    """pid is a running (not zombie) postmaster of this cluster."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    if state in ("Z", "X"):
        return False
    return any(arg.endswith(b"postgres") for arg in cmdline[:1]) and str(pgdata).encode() in cmdline


def recorded_pid(lay: Layout) -> int | None:
    """The postmaster's pid: ours (postgres.pid), else PostgreSQL's own record."""
    for path in (lay.pid_file, lay.pgdata / "postmaster.pid"):
        try:
            pid = int(path.read_text().split()[0])
        except (FileNotFoundError, PermissionError, ValueError, IndexError):
            continue
        if alive(pid, lay.pgdata):
            return pid
    return None


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return f"({path} does not exist)"


def initdb(lay: Layout, account: Account, bin_dir: Path) -> None:
    # Into a scratch folder, then renamed: a killed initdb leaves no half cluster.
    scratch = lay.root / "pgdata.initdb"
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(mode=0o700)
    chown(account, scratch)
    log = lay.logs / "initdb.log"
    with open(log, "w") as out:
        done = run_as(
            account,
            [
                str(bin_dir / "initdb"),
                "-D",
                str(scratch),
                "--no-locale",
                "--encoding=UTF8",
                "--auth-local=peer",
                "--auth-host=scram-sha-256",
                "--no-instructions",
            ],
            cwd=lay.root,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        raise CatalogError(f"initdb failed (exit {done.returncode}); {log}:\n{tail(log)}")
    with open(scratch / "postgresql.conf", "a") as conf:
        conf.write(
            f"\n# adlake.servers.catalog's settings, rewritten on every start.\ninclude_if_exists = '{SERVER_CONF}'\n"
        )
    scratch.rename(lay.pgdata)


def write_server_conf(lay: Layout, account: Account, port: int) -> None:
    path = lay.pgdata / SERVER_CONF
    path.write_text(
        "\n".join(
            [
                f"listen_addresses = '{HOST}'",
                f"port = {port}",
                f"unix_socket_directories = '{lay.run}'",
                "unix_socket_permissions = 0700",
                # Each Spark application's metastore client keeps pools of connections.
                "max_connections = 200",
                "shared_buffers = 32MB",
                "password_encryption = 'scram-sha-256'",
                "log_line_prefix = '%m [%p] %q%u@%d '",
                "",
            ]
        )
    )
    chown(account, path)
    os.chmod(path, 0o600)


def wait_ready(lay: Layout, account: Account, bin_dir: Path, port: int, timeout: float) -> int:
    """Wait until the server accepts connections on 127.0.0.1:port; its pid."""
    deadline = time.monotonic() + timeout
    while True:
        pid = recorded_pid(lay)
        if pid is not None:
            ping = run_as(
                account,
                [str(bin_dir / "pg_isready"), "-q", "-h", HOST, "-p", str(port), "-t", "2"],
                cwd=lay.root,
            )
            if ping.returncode == 0:
                return pid
        if time.monotonic() > deadline:
            raise CatalogError(
                f"PostgreSQL did not accept connections on {HOST}:{port} within {timeout:.0f} s; "
                f"{lay.server_log}:\n{tail(lay.server_log)}"
            )
        time.sleep(0.3)


def start_server(lay: Layout, account: Account, bin_dir: Path, port: int, timeout: float) -> int:
    write_server_conf(lay, account, port)
    if not lay.server_log.exists():
        lay.server_log.touch(mode=0o600)
        chown(account, lay.server_log)
    done = run_as(
        account,
        [
            str(bin_dir / "pg_ctl"),
            "start",
            "-D",
            str(lay.pgdata),
            "-l",
            str(lay.server_log),
            "-w",
            "-t",
            str(int(timeout)),
            "-s",
        ],
        cwd=lay.root,
        capture_output=True,
        text=True,
        start_new_session=True,
    )
    if done.returncode != 0:
        raise CatalogError(
            f"pg_ctl start failed (exit {done.returncode}): {done.stderr.strip()}\n"
            f"{lay.server_log}:\n{tail(lay.server_log)}"
        )
    return wait_ready(lay, account, bin_dir, port, timeout)


# --- SQL as the cluster's superuser ----------------------------------------------


def psql(
    lay: Layout,
    account: Account,
    bin_dir: Path,
    port: int,
    database: str,
    sql: str,
    log: Path | None = None,
    transaction: bool = True,
) -> str:
    """Run sql through psql over the Unix socket (peer authentication as the
    cluster's superuser), in one transaction; its output, or CatalogError."""
    cmd = [
        str(bin_dir / "psql"),
        "-X",
        "-q",
        "-A",
        "-t",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        str(lay.run),
        "-p",
        str(port),
        "-d",
        database,
        "-f",
        "-",
    ]
    if transaction:
        cmd.insert(1, "--single-transaction")
    done = run_as(account, cmd, cwd=lay.root, input=sql, capture_output=True, text=True)
    if log is not None:
        log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        where = f" (see {log})" if log else ""
        raise CatalogError(f"psql on {database} failed{where}: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def query(directory: Path | None, sql: str, database: str = DATABASE) -> str:
    """Run sql on the running catalog as its superuser (for checks and status)."""
    lay = layout(directory)
    state = read_state(lay)
    if recorded_pid(lay) is None or "port" not in state:
        raise CatalogError(f"the catalog in {lay.root} is not running")
    return psql(lay, service_account(lay), find_bin_dir(lay.pgdata), state["port"], database, sql)


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
