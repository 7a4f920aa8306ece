"""The dbt side of warm start (`method: session`, warm_start on): find the
lake's warm Spark server or start it, then give each dbt connection a Spark
Connect session of its own on it (its own SQL settings, as a child session
has in the embedded JVM).

Once per dbt process, per lake:

1. take the lake's client lock (`<lake>/.lakehouse-client.lock`, flock, held
   until the process ends): one dbt process per lake at a time, as the lake
   lock gives the in-process engine. Its text registers this process as
   `running`; it becomes `done` at a clean exit with no statement in flight;
2. read the lake's state file: a server whose processes live, whose port
   answers and whose settings match the profile's is used; one started with
   other settings, or left running a statement by a dbt process that died
   (still `running`), is stopped and a new one started. Killing the server
   kills that statement, as the death of an embedded JVM does: the next
   write rolls back its leftovers, and nothing races it;
3. open each connection to 127.0.0.1:<port> with the server's token.

A server pays for a process that ends with its command: the `dbt` command
line. A process that calls dbt in-process (a notebook, an orchestrator,
dbt's adapter tests) uses a lake's server when one runs, and otherwise runs
the lake on its own Spark, which stays warm between its calls
(_own_spark_pays). Only a profile its own Spark cannot serve (other launch
settings: jars, heap) starts a server from such a process, and the next lake
of that profile gets the same server, moved there (_move_server_here: within
a second, the server's poll, where a new server is a JVM start).

When the server's jars cannot be had (offline, no javac), dbt runs Spark
in-process as without warm start, and says why once.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from dbt.adapters.events.logging import AdapterLogger
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.__version__ import version as ADAPTER_VERSION
from dbt.adapters.lakehouse.credentials import is_dbt_command_line
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.lake.metastore import shares_catalog
from dbt.adapters.lakehouse.session import embedded as embedded_session
from dbt.adapters.lakehouse.session.connect import ConnectConnection, Endpoint
from dbt.adapters.lakehouse.session.embedded import SessionCursor
from dbt.adapters.lakehouse.warm import jars as warm_jars
from dbt.adapters.lakehouse.warm import registry as warm_registry
from dbt.adapters.lakehouse.warm import state as warm_state
from dbt.adapters.lakehouse.warm.state import DONE, RUNNING, Registration, ServerState

if TYPE_CHECKING:
    from dbt.adapters.lakehouse.credentials import LakehouseCredentials

logger = AdapterLogger("Lakehouse")

# Seconds a new server may take to serve, on top of lake_lock_timeout (it may
# first wait for the lake): a JVM start with Hudi is 10-20 s on a small machine.
START_TIMEOUT = 240
LOCK_POLL_SECONDS = 0.05

_lock = threading.Lock()
# The server each lake of this process uses, attached on first use.
_attached: dict[Path, Attached] = {}
# Why warm start cannot run in this process (said once), if it cannot.
_unavailable: list[str] = []
# Lakes whose server could not start here (every warm server in use at the
# cap), or would not pay (OwnSpark): this process runs their Spark in-process.
_in_process: set[Path] = set()


class NoRoom(Exception):
    """The cap of warm servers is reached and every one is in use."""


class OwnSpark(Exception):
    """The lake has no warm server, and starting one would not pay: this
    process calls dbt in-process (see _own_spark_pays)."""


class Attached:
    """This process's use of one lake's server: the client lock it holds and
    the statements it has in flight there."""

    def __init__(self, lake: Path, lock: IO[str], idle_timeout: float) -> None:
        self.lake = lake
        self.lock = lock
        self.idle_timeout = idle_timeout
        # The server's output (a server keeps the one of the lake it started on).
        self.log = warm_state.log_path(lake)
        self.state: ServerState | None = None
        self.process: subprocess.Popen[bytes] | None = None  # when this process started it
        self.in_flight = 0
        self._count = threading.Lock()

    def register(self, status: str) -> None:
        registration = Registration(os.getpid(), status, self.idle_timeout, warm_state.now_utc())
        self.lock.seek(0)
        self.lock.truncate()
        self.lock.write(registration.to_json())
        self.lock.flush()

    def release(self) -> None:
        """Leave the lake without a server of this process's (see NoRoom)."""
        atexit.unregister(self.at_exit)
        self.register(DONE)
        self.lock.close()

    def at_exit(self) -> None:
        # A statement still in flight at exit keeps running on the server:
        # leaving `running` makes the next dbt process stop that server first.
        if self.in_flight == 0:
            self.register(DONE)

    def endpoint(self) -> Endpoint:
        assert self.state is not None
        return Endpoint(
            warm_state.LOOPBACK,
            self.state.port,
            what="lake's warm Spark server",
            how_to_start=f"Run the command again (the server's log: {self.log})",
            headers=((warm_state.TOKEN_HEADER, self.state.token),),
        )

    def lost(self) -> bool:
        if self.process is not None:
            self.process.poll()  # reap our own child, or it looks alive
        return self.state is not None and not warm_state.usable(self.state)

    def lost_error(self) -> DbtRuntimeError:
        assert self.state is not None
        return DbtRuntimeError(
            f"The lake's warm Spark server (pid {self.state.pid}, JVM pid {self.state.jvm_pid}) "
            f"stopped during this statement; what it was doing is lost, and the next write rolls "
            f"its leftovers back. Run the command again: it starts a new server. Its log: {self.log}"
        )

    @contextmanager
    def statement(self) -> Generator[None, None, None]:
        with self._count:
            self.in_flight += 1
        try:
            yield
        except Exception:
            if self.lost():
                raise self.lost_error() from None
            raise
        finally:
            with self._count:
                self.in_flight -= 1


class WarmCursor(SessionCursor):
    """The Connect cursor, counting its statements in flight and naming a
    server that died under one (not a gRPC error or a Java stack)."""

    def __init__(self, spark: Any, attached: Attached) -> None:
        super().__init__(spark)
        self._attached = attached

    def execute(self, sql: str, *parameters: Any) -> None:
        with self._attached.statement():
            super().execute(sql, *parameters)

    def fetchall(self) -> Any:
        with self._attached.statement():
            return super().fetchall()

    def fetchone(self) -> Any:
        with self._attached.statement():
            return super().fetchone()

    @property
    def description(self) -> Any:
        with self._attached.statement():
            return super().description


class WarmConnection(ConnectConnection):
    def __init__(self, creds: LakehouseCredentials, attached: Attached) -> None:
        self._attached = attached
        try:
            super().__init__(creds, creds.server_side_parameters, attached.endpoint())
        except Exception:
            if attached.lost():
                raise attached.lost_error() from None
            raise

    def cursor(self) -> WarmCursor:
        return WarmCursor(self.session, self._attached)


def applies(creds: LakehouseCredentials) -> bool:
    """Warm start for this profile: on, and the lake's own catalog. A shared
    metastore is there for several Spark applications at once; its runs keep
    their own engine."""
    return bool(creds.warm_start) and not shares_catalog(creds.spark_conf)


def open_connection(creds: LakehouseCredentials) -> WarmConnection | None:
    """A connection on the lake's warm server; None when warm start cannot
    run here (then dbt runs Spark in-process)."""
    lake = Path(creds.lake_dir).expanduser().resolve()
    with _lock:
        if _unavailable or lake in _in_process:
            return None
        attached = _attached.get(lake)
        if attached is None:
            try:
                jars = warm_jars.server_jars(notify=logger.info)
            except warm_jars.WarmJarsUnavailable as exc:
                _unavailable.append(str(exc))
                logger.info(
                    f"Warm start is off for this run, Spark runs in-process: {exc}. Fix that to "
                    "keep Spark running between commands, or set warm_start: false in the "
                    "profile (or LAKEHOUSE_WARM_START=0) to silence this."
                )
                return None
            try:
                attached = _attach(lake, creds, server_settings(creds, jars))
            except (NoRoom, OwnSpark) as exc:
                _in_process.add(lake)
                logger.info(f"This run's Spark runs in-process: {exc}")
                if isinstance(exc, OwnSpark):
                    # The process's own Spark moves here: the lakes it left
                    # are free for other dbt processes, as after a move.
                    for other in list(_attached):
                        _release_if_idle(other)
                return None
            _attached[lake] = attached
    if attached.lost():
        raise attached.lost_error()
    return WarmConnection(creds, attached)


def server_settings(creds: LakehouseCredentials, jars: warm_jars.ServerJars) -> dict[str, Any]:
    """What the server is started with (on its stdin) and what its fingerprint covers."""
    import pyspark

    try:
        hudi_jar = hudi_bundle.resolve(creds.hudi_jar, notify=logger.info)
    except hudi_bundle.HudiBundleError as exc:
        raise DbtRuntimeError(str(exc)) from exc
    started_with = {
        "adapter": ADAPTER_VERSION,
        "pyspark": pyspark.__version__,
        "python": sys.executable,
        "hudi_jar": str(hudi_jar),
        "connect_jar": str(jars.connect),
        "guard_jar": str(jars.guard),
        "master": creds.master,
        "spark_conf": creds.spark_conf,
    }
    return started_with | {
        "fingerprint": warm_state.fingerprint(started_with),
        "lake_lock_timeout": creds.lake_lock_timeout,
        "idle_timeout": creds.warm_idle_timeout,
    }


def _attach(lake: Path, creds: LakehouseCredentials, settings: dict[str, Any]) -> Attached:
    lake.mkdir(parents=True, exist_ok=True)
    attached = Attached(
        lake, _take_client_lock(lake, creds.lake_lock_timeout), creds.warm_idle_timeout
    )
    attached.lock.seek(0)
    previous = Registration.parse(attached.lock.read())
    attached.register(RUNNING)
    atexit.register(attached.at_exit)
    state = warm_state.read_state(lake)
    if state is not None:
        reason = _why_not_reuse(state, previous, settings["fingerprint"])
        if reason is None:
            attached.state = state
            logger.debug(f"Using the lake's warm Spark server, pid {state.pid}, port {state.port}")
            return attached
        logger.info(f"Stopping the lake's warm Spark server (pid {state.pid}): {reason}.")
        warm_state.terminate(state, graceful=not warm_state.previous_client_died(previous))
    own_spark = _own_spark_pays(creds)
    if own_spark is not None:
        attached.release()
        raise OwnSpark(own_spark)
    if _move_server_here(attached, creds, settings["fingerprint"]):
        return attached
    heap = warm_registry.heap_mb(creds.spark_conf)
    with warm_registry.locked():
        room, stopped = warm_registry.make_room(lake, heap, release=_release_if_idle)
        for server in stopped:
            logger.info(warm_registry.stopped_note(server, heap))
        if not room:
            attached.release()
            raise NoRoom(warm_registry.no_room(heap))
        # Counted from now: its process lives before it serves.
        _spawn(attached, settings)
        warm_registry.add(attached.process.pid, lake, heap)  # type: ignore[union-attr]
    _await_serving(attached, creds)
    return attached


def _move_server_here(attached: Attached, creds: LakehouseCredentials, fingerprint: str) -> bool:
    """Bring here a server this process started for another lake, idle and
    started with this profile's settings: it moves within a second (it
    looks for the request once a second), where a new server is a JVM
    start. Whether it came; a server
    whose move fails ends (its log says why), and a new one starts here.
    (Called under _lock.)"""
    mover = next(
        (
            other
            for other in _attached.values()
            if other.process is not None
            and other.in_flight == 0
            and other.state is not None
            and other.state.fingerprint == fingerprint
            and not other.lost()
        ),
        None,
    )
    if mover is None or mover.process is None:
        return False
    process = mover.process
    logger.info(
        f"Moving the warm Spark server this process started (pid {process.pid}) from the lake "
        f"{mover.lake} to {attached.lake}."
    )
    request = warm_state.MoveRequest(
        str(attached.lake), fingerprint, creds.lake_lock_timeout, creds.warm_idle_timeout
    )
    warm_state.ask_move(mover.lake, request)
    state = _served_by(attached.lake, process, creds.lake_lock_timeout + START_TIMEOUT)
    if state is None:
        process.kill()
        process.wait()
        warm_state.move_path(mover.lake).unlink(missing_ok=True)
        logger.info(
            f"The warm Spark server could not move to the lake {attached.lake}; the end of "
            f"its log, {mover.log}:\n{_tail(mover.log)}"
        )
        _release_if_idle(mover.lake)
        return False
    # Off the other lake now: another dbt process may take that one.
    _release_if_idle(mover.lake)
    attached.state, attached.process, attached.log = state, process, mover.log
    return True


def _own_spark_pays(creds: LakehouseCredentials) -> str | None:
    """Why this process should run a lake that has no warm server on its own
    Spark rather than start one, if it should: it calls dbt in-process (a
    notebook, an orchestrator, dbt's adapter tests), so its Spark stays warm
    between its calls and moves from lake to lake in a fraction of a second
    (session/lake_switch.py), where a server would cost a JVM start and carry every
    statement over Spark Connect. Not for the `dbt` command line, which ends
    with its command; nor when this process's Spark was launched with
    settings this profile's differ in (its heap, jars): a server is then the
    way to run it."""
    if is_dbt_command_line():
        return None
    if not embedded_session.can_take(
        creds.lake_dir, creds.hudi_jar, creds.master, creds.spark_conf
    ):
        return None
    return (
        "this process calls dbt in-process and keeps its Spark between its calls, where a warm "
        "server would cost a JVM start and carry each statement over Spark Connect (a lake's "
        "server, started by the `dbt` command, is used when it runs)"
    )


def _release_if_idle(lake: Path) -> None:
    """Let go of a lake this process attached to earlier (another project's,
    in a process that runs dbt for several) when no statement of this
    process is in flight there: its server may then be stopped for room.
    A later connection to it attaches again. (Called under _lock.)"""
    attached = _attached.get(lake)
    if attached is not None and attached.in_flight == 0:
        attached.release()
        del _attached[lake]


def _why_not_reuse(
    state: ServerState, previous: Registration | None, fingerprint: str
) -> str | None:
    if warm_state.previous_client_died(previous):
        assert previous is not None
        return (
            f"the last dbt process on this lake (pid {previous.pid}) ended with a statement "
            "running there, which must not race this run"
        )
    if state.fingerprint != fingerprint:
        return "the profile's Spark settings (jars, master, spark_conf) or the adapter changed"
    if not warm_state.usable(state):
        return "it does not answer"
    return None


def _take_client_lock(lake: Path, timeout: float) -> IO[str]:
    """One dbt process per lake, as the lake lock is for the in-process engine."""
    handle = warm_state.client_lock_path(lake).open("a+")
    deadline = time.monotonic() + timeout
    told = False
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            # The server holds it for a moment each second, to see if a dbt
            # process does: hence the short polls.
            handle.seek(0)
            holder = Registration.parse(handle.read())
            running = holder is not None and holder.status == RUNNING
            who = f"dbt process pid {holder.pid}" if holder and running else "its idle warm server"
            if time.monotonic() >= deadline:
                handle.close()
                raise DbtRuntimeError(
                    f"The lake {lake} is in use by another process ({who}): one dbt process "
                    f"at a time uses a lake's warm Spark server. Waited {timeout:g} s "
                    "(lake_lock_timeout in the profile). Let that run finish, or give this run "
                    "another lake_dir."
                ) from None
            if not told and running:
                logger.info(
                    f"The lake {lake} is in use by another process ({who}); waiting for it."
                )
                told = True
            time.sleep(LOCK_POLL_SECONDS)


def _spawn(attached: Attached, settings: dict[str, Any]) -> None:
    """Start the lake's server process, its settings on its stdin."""
    lake, log = attached.lake, attached.log
    if log.exists():
        os.replace(log, log.with_name(log.name + ".1"))  # the last server's, for a post-mortem
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "dbt.adapters.lakehouse.warm.server", "serve"]
            + ["--lake-dir", str(lake)],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
            # Its own session: a Ctrl-C of this dbt command does not reach it.
            start_new_session=True,
        )
    attached.process = process
    assert process.stdin is not None
    # On stdin, never on the command line: spark_conf may hold secrets.
    process.stdin.write(json.dumps(settings).encode())
    process.stdin.close()
    logger.info(f"Starting the lake's warm Spark server (pid {process.pid}; its log: {log})")


def _await_serving(attached: Attached, creds: LakehouseCredentials) -> None:
    """Until the server started by _spawn serves (its state file names it)."""
    lake, log, process = attached.lake, attached.log, attached.process
    assert process is not None
    began = time.monotonic()
    state = _served_by(lake, process, creds.lake_lock_timeout + START_TIMEOUT)
    if state is None and process.poll() is not None:
        raise DbtRuntimeError(
            f"The lake's warm Spark server exited while starting (status "
            f"{process.returncode}). The end of its log, {log}:\n{_tail(log)}"
        )
    if state is None:
        process.kill()
        raise DbtRuntimeError(
            f"The lake's warm Spark server did not start within "
            f"{creds.lake_lock_timeout + START_TIMEOUT:g} s. The end of its log, {log}:\n"
            f"{_tail(log)}"
        )
    attached.state = state
    logger.info(
        f"The lake's warm Spark server serves on port {state.port} after "
        f"{time.monotonic() - began:.1f} s; it stops after {creds.warm_idle_timeout:g} s "
        f"without a dbt process, or with `{warm_state.stop_command(lake)}`"
    )


def _served_by(lake: Path, process: subprocess.Popen[bytes], timeout: float) -> ServerState | None:
    """The lake's state once it names `process` as its server (started, or
    moved there); None when the process ends or `timeout` passes first."""
    deadline = time.monotonic() + timeout
    while True:
        state = warm_state.read_state(lake)
        if state is not None and state.pid == process.pid:
            return state
        if process.poll() is not None or time.monotonic() >= deadline:
            return None
        time.sleep(0.05)


def _tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
