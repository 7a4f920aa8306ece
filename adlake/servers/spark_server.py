"""Start and stop a Spark Thrift server, from the installed pyspark, with Hudi.

The server gets the same Hudi settings as the adapter's embedded session (one
definition: `hudi_session_conf`), its own lake folder (the embedded Derby
metastore admits one JVM at a time) and binds to 127.0.0.1 only: the Thrift port
(hive.server2.thrift.bind.host) and the driver's own ports (spark.driver.bindAddress,
from hudi_session_conf for a local master).

    python -m adlake.servers.spark_server start --port 10000 --lake-dir .lake-thrift
    python -m adlake.servers.spark_server stop --lake-dir .lake-thrift

(or `adlake-thrift-server start|stop ...`).

`start` returns once the server accepts connections and writes its process id
to <lake-dir>/thrift.pid; `stop` ends that process.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyspark

from adlake import ROOT
from dbt.adapters.lakehouse import hudi_bundle
from dbt.adapters.lakehouse.embedded_session import hudi_session_conf

THRIFT_MAIN = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"

# Servers this process started, so stop() can reap them (a test starts and
# stops its server in one process; an unreaped child lingers as a zombie).
_children: dict = {}


def pid_file(lake_dir: Path) -> Path:
    return lake_dir / "thrift.pid"


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def start(port: int, lake_dir: Path, timeout: float = 180) -> int:
    lake_dir = lake_dir.resolve()
    lake_dir.mkdir(parents=True, exist_ok=True)
    if port_open(port):
        raise SystemExit(f"port {port} is already in use on 127.0.0.1")
    spark_home = Path(pyspark.__file__).parent
    jar = hudi_bundle.locate(cache_dir=ROOT / hudi_bundle.DEFAULT_CACHE_DIR)
    conf = hudi_session_conf(lake_dir, jar, "local[2]")
    # The Thrift server's query threads do not see --jars: the bundle must be
    # on the driver's own class path, or `USING hudi` is not found.
    conf.pop("spark.jars")
    conf["spark.driver.extraClassPath"] = str(jar)
    cmd = [str(spark_home / "bin" / "spark-submit"), "--class", THRIFT_MAIN]
    for key, value in conf.items():
        cmd += ["--conf", f"{key}={value}"]
    cmd += [
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        "hive.server2.thrift.bind.host=127.0.0.1",
        "spark-internal",
    ]
    env = dict(os.environ, SPARK_HOME=str(spark_home), SPARK_LOCAL_IP="127.0.0.1")
    log = open(lake_dir / "thrift.log", "w")
    process = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=lake_dir)
    pid_file(lake_dir).write_text(str(process.pid))
    _children[process.pid] = process
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(
                f"Thrift server exited with {process.returncode}; see {lake_dir / 'thrift.log'}"
            )
        if port_open(port):
            return process.pid
        time.sleep(1)
    stop(lake_dir)
    raise SystemExit(f"Thrift server did not listen on {port} within {timeout:.0f} s")


def stop(lake_dir: Path, timeout: float = 30) -> None:
    path = pid_file(lake_dir.resolve())
    if not path.exists():
        return
    pid = int(path.read_text())
    path.unlink()
    child = _children.pop(pid, None)
    try:
        os.kill(pid, signal.SIGTERM)
        if child is not None:
            try:
                child.wait(timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            return
        deadline = time.time() + timeout
        while time.time() < deadline:
            os.kill(pid, 0)  # raises once the process is gone
            time.sleep(0.5)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description="Spark Thrift server with Hudi, on 127.0.0.1")
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("--port", type=int, default=10000)
    parser.add_argument("--lake-dir", type=Path, default=ROOT / ".lake-thrift")
    args = parser.parse_args()
    if args.action == "start":
        print(
            f"Thrift server listening on 127.0.0.1:{args.port}, pid {start(args.port, args.lake_dir)}"
        )
    else:
        stop(args.lake_dir)


if __name__ == "__main__":
    sys.exit(main())
