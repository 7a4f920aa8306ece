"""start, stop and status: the catalog's lifecycle, from the other modules'
steps."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from adlake.servers.catalog.accounts import prepare_folders, service_account
from adlake.servers.catalog.layout import (
    DATABASE,
    HOST,
    ROLE,
    CatalogError,
    layout,
    read_state,
    write_state,
)
from adlake.servers.catalog.passwords import ensure_password
from adlake.servers.catalog.postgres import (
    alive,
    find_bin_dir,
    free_port,
    initdb,
    port_free,
    query,
    recorded_pid,
    start_server,
)
from adlake.servers.catalog.schema import provision
from adlake.servers.catalog.spark import default_warehouse


def start(directory: Path | None = None, port: int | None = None, timeout: float = 60) -> dict:
    """Create (once), start (unless running) and provision the catalog; its status."""
    lay = layout(directory)
    account = service_account(lay)
    prepare_folders(lay, account)
    bin_dir = find_bin_dir(lay.pgdata)
    secret = ensure_password(lay)
    if not (lay.pgdata / "PG_VERSION").exists():
        initdb(lay, account, bin_dir)
    state = read_state(lay)
    pid = recorded_pid(lay)
    if pid is not None:
        if port is not None and port != state.get("port"):
            raise CatalogError(
                f"the catalog is running on port {state.get('port')}: stop it to change its port"
            )
        if not state.get("port"):
            raise CatalogError(
                f"a server of {lay.pgdata} (pid {pid}) runs, not started by this tool: stop it"
            )
        port = state["port"]
    else:
        if port is None:
            port = (
                state.get("port") if state.get("port") and port_free(state["port"]) else free_port()
            )
        elif not port_free(port):
            raise CatalogError(f"port {port} is already in use on {HOST}")
        pid = start_server(lay, account, bin_dir, port, timeout)
    lay.pid_file.write_text(f"{pid}\n")
    write_state(
        lay,
        {
            "port": port,
            "host": HOST,
            "database": DATABASE,
            "role": ROLE,
            "os_user": account.name,
            "bin_dir": str(bin_dir),
        },
    )
    provision(lay, account, bin_dir, port, secret)
    return status(lay.root)


def stop(directory: Path | None = None, timeout: float = 30) -> bool:
    """Stop the server by its recorded pid; False when it was not running."""
    lay = layout(directory)
    pid = recorded_pid(lay)
    stopped = False
    if pid is not None:
        # SIGINT is PostgreSQL's fast shutdown (SIGTERM's smart shutdown would wait
        # for every Spark application to close its connections).
        for sig, wait in ((signal.SIGINT, timeout), (signal.SIGQUIT, 10), (signal.SIGKILL, 10)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while alive(pid, lay.pgdata) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not alive(pid, lay.pgdata):
                break
        if alive(pid, lay.pgdata):
            raise CatalogError(f"PostgreSQL (pid {pid}) did not stop")
        stopped = True
    lay.pid_file.unlink(missing_ok=True)
    return stopped


def status(directory: Path | None = None) -> dict:
    lay = layout(directory)
    state = read_state(lay)
    pid = recorded_pid(lay)
    info = {
        "running": pid is not None,
        "pid": pid,
        "host": HOST,
        "port": state.get("port"),
        "database": DATABASE,
        "role": ROLE,
        "os_user": state.get("os_user"),
        "dir": str(lay.root),
        "pgdata": str(lay.pgdata),
        "logs": str(lay.logs),
        "warehouse": str(default_warehouse(lay.root)),
    }
    if pid is not None:
        try:
            info["schema_version"] = query(lay.root, 'SELECT "SCHEMA_VERSION" FROM "VERSION";')
        except CatalogError:
            info["schema_version"] = None
    return info
