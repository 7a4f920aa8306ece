"""A lake's warm Spark server: the embedded session, kept running between dbt
commands and served to them over Spark Connect on loopback.

    dbt-lakehouse-server status --lake-dir DIR   # pid, port, idle time
    dbt-lakehouse-server stop --lake-dir DIR     # stop it now
    dbt-lakehouse-server stop --all              # every one of this user (warm/registry.py)
    python -m dbt.adapters.lakehouse.warm.server ...   # the same

`serve` is what the first dbt command on a lake starts (warm/client.py), in a
session of its own with its output in `<lake>/.lakehouse-server.log`; it reads
its settings as JSON on stdin (spark_conf may hold secrets, which a command
line would show to every local user). It builds the Spark session exactly as
the in-process engine does (`embedded_session.root_session`: the same Hudi
settings, the lake's catalog and lake lock), adds the Connect service to it on
a free loopback port, guarded by a random token, and then writes the lake's
state file. A dbt process that started it for a profile its own Spark cannot
serve, and goes on to another lake of that profile, may ask it to move there
(warm_state.MoveRequest): its session moves as the in-process engine's does
(session/lake_switch.py), on the same Spark context and Connect service, and the
state file with it. It stops after `idle_timeout` seconds without a dbt
process on the lake, on `stop` (SIGTERM), when its lake folder is removed,
when a dbt process needs room under the cap of warm servers
(warm/registry.py), when a move fails, or when its JVM dies; each time it
stops Spark and its JVM before it exits.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import json
import os
import secrets
import signal
import sys
import time
from pathlib import Path
from typing import IO, Any

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.lake import lock as lake_lock
from dbt.adapters.lakehouse.session import embedded as embedded_session
from dbt.adapters.lakehouse.warm import jars as warm_jars
from dbt.adapters.lakehouse.warm import registry as warm_registry
from dbt.adapters.lakehouse.warm import state as warm_state
from dbt.adapters.lakehouse.warm.state import Registration, ServerState

# How often it looks at its JVM, its lake, its client and for a move request.
POLL_SECONDS = 1.0
CONNECT_SERVICE = "org.apache.spark.sql.connect.service.SparkConnectService"


def log(message: str) -> None:
    print(f"{warm_state.now_utc()} warm server {os.getpid()}: {message}", flush=True)


class Server:
    """One serving process: its lake, its Spark session, and why it should stop."""

    def __init__(self, lake: Path, settings: dict[str, Any]) -> None:
        self.lake = lake
        self.settings = settings
        self.idle_timeout = float(settings["idle_timeout"])
        self.stop_reason: str | None = None
        self.idle_since = time.monotonic()
        self.session: Any = None
        self.state: ServerState | None = None
        # The session's settings, as started: a move keeps them.
        self.spark_conf: dict[str, str] = {}
        self.client_lock: IO[str] = warm_state.client_lock_path(lake).open("a+")

    def request_stop(self, signum: int, _frame: Any) -> None:
        if self.session is None:
            # Still starting (waiting for the lake, or for the JVM): nothing
            # to serve yet, and the JVM ends with this process (its stdin).
            log(f"signal {signum} while starting; exiting")
            raise SystemExit(0)
        self.stop_reason = f"signal {signum}"

    def start(self) -> None:
        token = secrets.token_urlsafe(32)
        port = warm_state.free_port()
        spark_conf = dict(self.settings["spark_conf"])
        classpath = [self.settings["connect_jar"], self.settings["guard_jar"]]
        if spark_conf.get("spark.driver.extraClassPath"):
            classpath.insert(0, spark_conf["spark.driver.extraClassPath"])
        spark_conf["spark.driver.extraClassPath"] = os.pathsep.join(classpath)
        spark_conf["spark.connect.grpc.binding.port"] = str(port)
        spark_conf["spark.connect.grpc.interceptor.classes"] = warm_jars.GUARD_CLASS
        log(f"starting Spark for {self.lake}")
        self.spark_conf = spark_conf
        self.session = self._session_on(self.lake, float(self.settings["lake_lock_timeout"]))
        jvm = self.session._jvm
        # Set at run time, not on the JVM's command line; the guard reads it
        # when the service below creates it.
        jvm.java.lang.System.setProperty(warm_jars.TOKEN_PROPERTY, token)
        getattr(jvm, CONNECT_SERVICE).start(self.session._jsc.sc())
        self._name_holder()
        self.state = ServerState(
            pid=os.getpid(),
            jvm_pid=int(jvm.java.lang.ProcessHandle.current().pid()),
            port=port,
            token=token,
            fingerprint=self.settings["fingerprint"],
            started_at=warm_state.now_utc(),
            lake=str(self.lake),
        )
        warm_state.write_private(warm_state.state_path(self.lake), self.state.to_json())
        log(f"serving on {warm_state.LOOPBACK}:{port} (JVM pid {self.state.jvm_pid})")

    def _session_on(self, lake: Path, lock_timeout: float) -> Any:
        return embedded_session.root_session(
            str(lake),
            self.settings["hudi_jar"],
            self.settings["master"],
            self.spark_conf,
            lock_timeout,
            # It runs no dbt command whose end would write an archive.
            records_class_data=False,
        )

    def move(self, request: warm_state.MoveRequest) -> None:
        """Serve `request.lake` from now on: the session moves there
        (session/lake_switch.py: this lake's lock let go, the next one's taken), then
        the state file. Clients of this lake find no server from the start."""
        assert self.state is not None
        target = Path(request.lake)
        if request.fingerprint != self.state.fingerprint:
            raise RuntimeError("asked by a profile of other settings")
        log(f"moving to the lake {target}")
        warm_state.remove_state(self.lake, os.getpid())
        context = self.session.sparkContext.applicationId
        session = self._session_on(target, request.lake_lock_timeout)
        if session.sparkContext.applicationId != context:
            # Connect serves the context it was started on.
            raise RuntimeError("the lake needed a new Spark context")
        self.session = session
        self.client_lock.close()
        self.lake = target
        self.client_lock = warm_state.client_lock_path(target).open("a+")
        self.idle_timeout = request.idle_timeout
        self._name_holder()
        warm_registry.add(os.getpid(), target, warm_registry.heap_mb(self.settings["spark_conf"]))
        self.state = dataclasses.replace(self.state, lake=str(target))
        warm_state.write_private(warm_state.state_path(target), self.state.to_json())
        log(f"serving the lake {target}")

    def _name_holder(self) -> None:
        """Say in the lake lock's text who holds it and how to stop it: a
        process with warm start off waits for this lock, then names its holder."""
        with contextlib.suppress(OSError), (self.lake / lake_lock.LOCK_FILE).open("r+") as lock:
            lock.truncate()
            lock.write(
                f"the lake's warm Spark server, pid {os.getpid()}, since {warm_state.now_utc()}; "
                f"stop it with `{warm_state.stop_command(self.lake)}`\n"
            )

    def serve(self) -> str:
        """Wait until a reason to stop; returns it. Moves when asked."""
        self.idle_since = time.monotonic()
        while self.stop_reason is None:
            request = warm_state.take_move(self.lake)
            if request is not None:
                try:
                    self.move(request)
                except Exception as exc:
                    # Half-way between two lakes: the dbt process that
                    # asked sees this process end, and starts another.
                    return f"the move to the lake {request.lake} failed: {exc}"
            reason = self._why_stop()
            if reason is not None:
                return reason
            time.sleep(POLL_SECONDS)
        return self.stop_reason

    def _why_stop(self) -> str | None:
        """A reason to stop now, if there is one."""
        gateway = self.session.sparkContext._gateway
        if gateway.proc is not None and gateway.proc.poll() is not None:
            return f"its JVM ended (exit status {gateway.proc.returncode})"
        if not self.lake.is_dir():
            return "its lake folder is gone"
        if self._client_present():
            self.idle_since = time.monotonic()
        elif time.monotonic() - self.idle_since >= self._current_idle_timeout():
            # The client lock, kept from here to exit: a dbt process
            # starting now waits, then finds no server and starts one.
            if self._take_client_lock():
                return f"no dbt process for {self._current_idle_timeout():g} s"
            self.idle_since = time.monotonic()
        return None

    def _client_present(self) -> bool:
        if self._take_client_lock():
            fcntl.flock(self.client_lock, fcntl.LOCK_UN)
            return False
        return True

    def _take_client_lock(self) -> bool:
        try:
            fcntl.flock(self.client_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _current_idle_timeout(self) -> float:
        """The last dbt process's warm_idle_timeout: the profile used last decides."""
        self.client_lock.seek(0)
        registration = Registration.parse(self.client_lock.read())
        if registration is not None:
            self.idle_timeout = registration.idle_timeout
        return self.idle_timeout

    def shutdown(self, reason: str) -> None:
        """Clients first find no state, then Spark stops, then its JVM ends."""
        log(f"stopping: {reason}")
        warm_state.remove_state(self.lake, os.getpid())
        warm_registry.remove(os.getpid())
        if self.session is None:
            return
        gateway = self.session.sparkContext._gateway
        if gateway.proc is not None and gateway.proc.poll() is not None:
            log("stopped (its JVM had ended)")  # nothing to ask it: py4j would log a stack
            return
        jvm = self.session._jvm
        with contextlib.suppress(Exception):
            none = jvm.scala.Option.empty()
            getattr(jvm, CONNECT_SERVICE).stop(none, none)
        with contextlib.suppress(Exception):
            self.session.stop()
        with contextlib.suppress(Exception):
            gateway.shutdown()
        proc = gateway.proc
        if proc is not None:
            # pyspark's JVM exits when its stdin closes; kill it if it does not.
            with contextlib.suppress(Exception):
                proc.stdin.close()
            try:
                proc.wait(15)
            except Exception:
                proc.kill()
                proc.wait()
        log("stopped")


def serve(lake: Path) -> int:
    settings = json.loads(sys.stdin.read())
    sys.stdin.close()
    lake.mkdir(parents=True, exist_ok=True)
    server = Server(lake, settings)
    signal.signal(signal.SIGTERM, server.request_stop)
    signal.signal(signal.SIGINT, server.request_stop)
    try:
        server.start()
        reason = server.stop_reason or server.serve()
    except BaseException as exc:
        if not isinstance(exc, SystemExit):
            log(f"failed: {type(exc).__name__}: {exc}")
        server.shutdown("failure")
        raise
    server.shutdown(reason)
    return 0


def stop_all(timeout: float) -> int:
    """Stop every warm server of this user (warm/registry.py), in use or not."""
    failed = 0
    for entry in warm_registry.running():
        state = warm_state.read_state(Path(entry.lake))
        if state is not None and state.pid == entry.pid:
            failed += stop(Path(entry.lake), timeout)
        else:  # starting, or its lake folder gone: the process alone
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(entry.pid, signal.SIGTERM)
            warm_registry.remove(entry.pid)
            print(f"Stopped the warm Spark server pid {entry.pid} (lake {entry.lake}).")
    return 1 if failed else 0


def stop(lake: Path, timeout: float) -> int:
    state = warm_state.read_state(lake)
    if state is None:
        print(f"No warm Spark server runs for the lake {lake}.")
        return 0
    warm_state.terminate(state, timeout)
    gone = not (processes.alive(state.pid) or processes.alive(state.jvm_pid))
    print(f"Stopped the warm Spark server of {lake} (pid {state.pid}, JVM pid {state.jvm_pid}).")
    return 0 if gone else 1


def status(lake: Path) -> int:
    state = warm_state.read_state(lake)
    if state is None or not processes.alive(state.pid):
        print(f"No warm Spark server runs for the lake {lake}.")
        return 3
    lock_path = warm_state.client_lock_path(lake)
    registration = Registration.parse(lock_path.read_text()) if lock_path.exists() else None
    with lock_path.open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
            idle = time.time() - lock_path.stat().st_mtime
            use = f"idle for {idle:.0f} s" + (
                f" (stops after {registration.idle_timeout:g} s)" if registration else ""
            )
        except BlockingIOError:
            use = f"in use by dbt pid {registration.pid if registration else '?'}"
    print(f"lake:    {lake}")
    print(f"pid:     {state.pid} (JVM {state.jvm_pid})")
    print(f"port:    {warm_state.LOOPBACK}:{state.port}")
    print(f"started: {state.started_at}")
    print(f"state:   {use}")
    print(f"log:     {warm_state.log_path(lake)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="dbt-lakehouse-server",
        description="The warm local Spark server of a dbt-lakehouse lake (method: session).",
    )
    parser.add_argument("action", choices=["status", "stop", "serve"])
    parser.add_argument(
        "--lake-dir", type=Path, default=Path(".lake"), help="the profile's lake_dir (.lake)"
    )
    parser.add_argument("--timeout", type=float, default=30, help="stop: seconds before SIGKILL")
    parser.add_argument(
        "--all", action="store_true", help="stop: every warm server of this user, whatever its lake"
    )
    args = parser.parse_args(argv)
    if args.action == "stop" and args.all:
        return stop_all(args.timeout)
    lake = args.lake_dir.expanduser().resolve()
    if args.action == "serve":
        return serve(lake)
    if args.action == "stop":
        return stop(lake, args.timeout)
    return status(lake)


if __name__ == "__main__":
    sys.exit(main())
