"""Spark Thrift and Spark Connect servers, from the installed pyspark, with Hudi.

    python -m adlake.servers.spark_server start thrift  [--port 10000] [--dir .lake-thrift]
    python -m adlake.servers.spark_server start connect [--port 15002] [--dir .lake-connect]
    python -m adlake.servers.spark_server status|stop thrift|connect [--dir ...]

Options of `start`: `--master spark://127.0.0.1:7077` runs the server's work on
a cluster (adlake.servers.cluster; default: local[2] inside the server);
`--catalog DIR` uses the shared Hive catalog that adlake.servers.catalog runs
in DIR (default: a Derby metastore in the server's folder, which no other
application may open); `--token-env NAME` (Connect only) requires the token
held in that environment variable and serves TLS, on `--bind` (default
127.0.0.1).

Each server gets the adapter's own Hudi settings (`hudi_session_conf`), and
with `--table-formats hudi,iceberg` Iceberg's jar, extension and catalog as
the embedded session loads them, and binds its driver to 127.0.0.1. The Thrift server listens on 127.0.0.1 only
(hive.server2.thrift.bind.host). Spark 3.5's Connect server cannot be bound to
one address and checks no one, so it loads an interceptor
(java/LoopbackOrTokenInterceptor.java, compiled here against the Connect jar)
that admits loopback clients only, and, with a token, only calls that carry it;
the TLS front (tls_front.py) is then the way in for remote clients.

`start` returns once the server answers on its port (the TLS front's too),
with the process id in <dir>/<kind>.pid, what it serves in <dir>/<kind>.json,
its log in <dir>/logs/<kind>.log. The server's settings, which may hold the
catalog's password, go in <dir>/<kind>.properties (mode 0600), never on its
command line. `stop` ends the front and the server by their process ids.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyspark

from adlake import ROOT
from adlake.servers import catalog, processes, tls_front
from adlake.servers.catalog import free_port  # a free port on 127.0.0.1
from adlake.servers.processes import LOOPBACK, port_open, write_private
from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.session import format_jars
from dbt.adapters.lakehouse.session import hadoop_conf as local_hadoop_conf
from dbt.adapters.lakehouse.session.embedded import hudi_session_conf
from dbt.adapters.lakehouse.session.local_dir import JAVA_OPTIONS, scratch_conf

MAINS = {
    "thrift": "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
    "connect": "org.apache.spark.sql.connect.service.SparkConnectServer",
}
DEFAULT_PORTS = {"thrift": 10000, "connect": 15002}
JARS_DIR = ROOT / ".cache" / "jars"
GUARD_SOURCE = Path(__file__).with_name("java") / "LoopbackOrTokenInterceptor.java"
GUARD_CLASS = "adlake.connect.LoopbackOrTokenInterceptor"
# The variable the interceptor reads the token from, in the server's own
# environment (readable by its user only, unlike its command line).
SERVER_TOKEN_ENV = "LAKEHOUSE_CONNECT_TOKEN"


class ServerError(Exception):
    """A server that cannot start, with what to do about it."""


@dataclass(frozen=True)
class Files:
    """Where a server of one kind keeps its things, in its folder."""

    root: Path
    kind: str

    @property
    def pid(self) -> Path:
        return self.root / f"{self.kind}.pid"

    @property
    def front_pid(self) -> Path:
        return self.root / f"{self.kind}-tls.pid"

    @property
    def state(self) -> Path:
        return self.root / f"{self.kind}.json"

    @property
    def properties(self) -> Path:
        return self.root / f"{self.kind}.properties"

    @property
    def log(self) -> Path:
        return self.root / "logs" / f"{self.kind}.log"

    @property
    def front_log(self) -> Path:
        return self.root / "logs" / f"{self.kind}-tls.log"

    @property
    def tls(self) -> Path:
        return self.root / "tls"

    @property
    def scratch(self) -> Path:
        """Spark's scratch files, and the folder the catalog's Hive client
        makes at start and never removes: here, not in /tmp."""
        return self.root / f"{self.kind}-scratch"


def default_dir(kind: str) -> Path:
    return ROOT / f".lake-{kind}"


def connect_jar() -> Path:
    """Spark Connect's server module for the installed pyspark, fetched into
    the project's jar cache the first time (as the Hudi bundle is)."""
    jar = hudi_bundle.installed_bundle().connect_server
    try:
        return maven.fetch_jar(jar, "Spark Connect's server", JARS_DIR, notify=print)
    except maven.JarError as exc:
        raise ServerError(
            f"Spark Connect's server module {jar.coordinates} is not in {JARS_DIR} and could "
            f"not be fetched ({exc}); set LAKEHOUSE_MAVEN_REPOSITORY to a Maven mirror, or "
            f"put {jar.jar_name} there"
        ) from exc


def guard_jar() -> Path:
    """The interceptor, compiled against the Connect jar's shaded gRPC when
    its source is newer than the jar."""
    jar = JARS_DIR / "adlake-connect-guard.jar"
    if jar.exists() and jar.stat().st_mtime >= GUARD_SOURCE.stat().st_mtime:
        return jar
    with tempfile.TemporaryDirectory() as classes:
        for cmd in (
            ["javac", "-d", classes, "-cp", str(connect_jar()), str(GUARD_SOURCE)],
            ["jar", "cf", str(jar), "-C", classes, "."],
        ):
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise ServerError(f"{' '.join(cmd[:2])} failed:\n{done.stderr}")
    return jar


def server_conf(
    kind: str,
    root: Path,
    master: str,
    catalog_dir: Path | None,
    formats: Sequence[str] = (table_formats.DEFAULT_FORMAT,),
) -> dict[str, str]:
    """The server's Spark settings: the embedded session's Hudi settings and
    those of the other table `formats` it serves (jars, SQL extensions,
    catalogs, as the embedded session loads them), the jars on the driver's
    class path (the Thrift server's query threads do not see --jars), with
    the shared catalog's when there is one."""
    jar = hudi_bundle.locate(cache_dir=ROOT / maven.DEFAULT_CACHE_DIR)
    formats = table_formats.check_names(formats, "--table-formats")
    conf = hudi_session_conf(root, jar, master)
    conf.pop("spark.jars")
    conf.update(table_formats.session_conf(formats, conf["spark.sql.warehouse.dir"], master))
    conf[table_formats.FORMATS_CONF] = table_formats.encode(formats)
    conf["spark.sql.extensions"] = ",".join(
        [conf["spark.sql.extensions"], *table_formats.extensions(formats)]
    )
    # YARN's defaults left out of a local master's Hadoop configuration, as
    # in the embedded session (the adapter's session/hadoop_conf.py).
    classpath = [*local_hadoop_conf.class_path(master, jar.parent), str(jar)]
    classpath += map(str, format_jars.fetch(formats, print, jar))
    if kind == "connect":
        classpath += [str(connect_jar()), str(guard_jar())]
        conf["spark.connect.grpc.interceptor.classes"] = GUARD_CLASS
    if catalog_dir is not None:
        shared = catalog.spark_conf(catalog_dir)
        classpath.append(shared.pop("spark.driver.extraClassPath"))
        conf.update(shared)
    conf["spark.driver.extraClassPath"] = os.pathsep.join(classpath)
    # A cluster's executors run on this machine: the same files. They run
    # the server's code too (Connect's plans ship its lambdas).
    conf["spark.executor.extraClassPath"] = conf["spark.driver.extraClassPath"]
    conf["spark.app.name"] = f"adlake-{kind}"
    # A Hive folder per client session in it (the Thrift server opens a Hive
    # session for each, and removes its folder when it closes).
    conf.update(scratch_conf(Files(root, kind).scratch, conf[JAVA_OPTIONS]))
    # The driver on loopback whatever the master: the cluster is local too.
    conf["spark.driver.bindAddress"] = LOOPBACK
    conf["spark.driver.host"] = LOOPBACK
    if not master.startswith("local"):
        conf["spark.executor.memory"] = "2g"
    return conf


def _properties(conf: dict[str, str]) -> str:
    # Java properties: backslashes doubled; keys here hold no '=' or ':'.
    return "".join(f"{key}={value.replace(chr(92), chr(92) * 2)}\n" for key, value in conf.items())


def _spawn(cmd: list[str], env: dict[str, str], log: Path, pid_file: Path) -> subprocess.Popen:
    process = processes.spawn(cmd, env, log, cwd=pid_file.parent)
    pid_file.write_text(str(process.pid))
    return process


def start(
    kind: str,
    port: int,
    directory: Path,
    *,
    master: str = "local[2]",
    catalog_dir: Path | None = None,
    token_env: str | None = None,
    bind: str = LOOPBACK,
    timeout: float = 240,
    formats: Sequence[str] = (table_formats.DEFAULT_FORMAT,),
) -> int:
    """Start a server; returns its process id once it answers."""
    files = Files(directory.resolve(), kind)
    files.root.mkdir(parents=True, exist_ok=True)
    running = status(kind, files.root)
    if running and running["alive"]:
        raise ServerError(f"a {kind} server already runs from {files.root} (pid {running['pid']})")
    token = _token(kind, token_env, bind)
    if port_open(port, LOOPBACK):
        raise ServerError(f"port {port} is already in use on {LOOPBACK}")
    shutil.rmtree(files.scratch, ignore_errors=True)  # what a killed server left
    conf = server_conf(kind, files.root, master, catalog_dir, formats)
    served = free_port() if token else port  # behind the TLS front, a port of its own
    if kind == "connect":
        conf["spark.connect.grpc.binding.port"] = str(served)
    write_private(files.properties, _properties(conf))
    spark_home = Path(pyspark.__file__).parent
    cmd = [str(spark_home / "bin" / "spark-submit"), "--class", MAINS[kind]]
    cmd += ["--properties-file", str(files.properties)]
    if kind == "thrift":
        cmd += ["--hiveconf", f"hive.server2.thrift.port={port}"]
        cmd += ["--hiveconf", f"hive.server2.thrift.bind.host={bind}"]
    cmd.append("spark-internal")
    env = dict(os.environ, SPARK_HOME=str(spark_home), SPARK_LOCAL_IP=LOOPBACK)
    env.pop(SERVER_TOKEN_ENV, None)
    if token:
        env[SERVER_TOKEN_ENV] = token
    process = _spawn(cmd, env, files.log, files.pid)
    state = {"kind": kind, "pid": process.pid, "port": port, "master": master}
    state |= {
        "table_formats": conf[table_formats.FORMATS_CONF],
        "catalog": str(catalog_dir) if catalog_dir else None,
        "bind": bind,
        "tls": bool(token),
    }
    files.state.write_text(json.dumps(state, indent=2) + "\n")
    try:
        processes.wait_listening(process, served, files.log, timeout)
        if token:
            cert, key = tls_front.make_certificate(files.tls, [bind])
            front = _spawn(
                [sys.executable, "-m", "adlake.servers.tls_front"]
                + ["--listen", f"{bind}:{port}", "--upstream", f"{LOOPBACK}:{served}"]
                + ["--cert", str(cert), "--key", str(key)],
                {k: v for k, v in os.environ.items() if k != token_env},
                files.front_log,
                files.front_pid,
            )
            processes.wait_listening(front, port, files.front_log, 30, host=bind)
    except (processes.NotListening, ServerError) as exc:
        stop(kind, files.root)
        raise ServerError(f"the {kind} server {exc}") from exc
    return process.pid


def _token(kind: str, token_env: str | None, bind: str) -> str | None:
    if token_env is None:
        if bind != LOOPBACK:
            raise ServerError(
                f"--bind {bind}: a server without a token listens on {LOOPBACK} only; "
                "give it one with --token-env (Connect)"
            )
        return None
    if kind != "connect":
        raise ServerError("--token-env is for the Connect server (the Thrift server takes none)")
    token = os.environ.get(token_env, "")
    if not token:
        raise ServerError(f"--token-env {token_env}: that environment variable is unset or empty")
    return token


def stop(kind: str, directory: Path, timeout: float = 30) -> None:
    files = Files(directory.resolve(), kind)
    processes.end_recorded(files.front_pid, timeout)
    processes.end_recorded(files.pid, timeout)


def status(kind: str, directory: Path) -> dict | None:
    """What the server in `directory` serves, and whether it is alive; None
    when none was started there."""
    files = Files(directory.resolve(), kind)
    return processes.recorded_state(files.state, files.pid, files.log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Spark Thrift or Connect server with Hudi")
    parser.add_argument("action", choices=["start", "stop", "status"])
    parser.add_argument("kind", choices=sorted(MAINS))
    parser.add_argument("--dir", type=Path, help="the server's folder (default .lake-<kind>)")
    parser.add_argument("--port", type=int, help="default 10000 (thrift), 15002 (connect)")
    parser.add_argument("--master", default="local[2]", help="e.g. spark://127.0.0.1:7077")
    parser.add_argument("--catalog", type=Path, help="a shared catalog's folder")
    parser.add_argument("--token-env", help="Connect: the variable holding the token")
    parser.add_argument("--bind", default=LOOPBACK, help="Connect with a token: TLS address")
    parser.add_argument(
        "--table-formats",
        default=table_formats.DEFAULT_FORMAT,
        help="the table formats it serves, e.g. hudi,iceberg (default hudi)",
    )
    args = parser.parse_args(argv)
    directory = args.dir or default_dir(args.kind)
    try:
        if args.action == "start":
            port = args.port or DEFAULT_PORTS[args.kind]
            pid = start(
                args.kind,
                port,
                directory,
                master=args.master,
                catalog_dir=args.catalog,
                token_env=args.token_env,
                bind=args.bind,
                formats=[f for f in args.table_formats.split(",") if f],
            )
            print(
                f"{args.kind} server on {args.bind}:{port}, pid {pid}, log {Files(directory.resolve(), args.kind).log}"
            )
        elif args.action == "stop":
            stop(args.kind, directory)
        else:
            state = status(args.kind, directory)
            print(json.dumps(state, indent=2) if state else f"no {args.kind} server in {directory}")
            return 0 if state and state["alive"] else 3
    except (ServerError, catalog.CatalogError) as exc:
        print(f"spark_server: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
