"""A local Spark standalone cluster: one master and two workers, from the
installed pyspark, all on 127.0.0.1.

    python -m adlake.servers.cluster start [--dir .cache/cluster] [--workers 2]
    python -m adlake.servers.cluster status|stop [--dir ...]

`start` returns once every worker has registered with the master, and prints
the master's URL (spark://127.0.0.1:PORT), which `adlake.servers.spark_server
start ... --master URL` takes: the Thrift and Connect servers are then the
cluster's drivers, and their queries run on the workers' executors. The
processes' ids are in <dir>/cluster.json, their logs in <dir>/logs/; `stop`
ends the workers, then the master, by those ids.

Each worker offers one core and 3 GiB (this machine has 2 cores and 24 GiB);
`--cores` and `--memory` change that. The web UIs bind to 127.0.0.1 too
(SPARK_LOCAL_IP), on free ports.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pyspark

from adlake import ROOT
from adlake.servers import processes
from adlake.servers.spark_server import LOOPBACK, free_port, port_open

DEFAULT_DIR = ROOT / ".cache" / "cluster"
MASTER = "org.apache.spark.deploy.master.Master"
WORKER = "org.apache.spark.deploy.worker.Worker"


class ClusterError(Exception):
    pass


def _state_file(directory: Path) -> Path:
    return directory / "cluster.json"


def _spark_class(main: str, args: list[str], log: Path) -> subprocess.Popen:
    spark_home = Path(pyspark.__file__).parent
    env = dict(os.environ, SPARK_HOME=str(spark_home), SPARK_LOCAL_IP=LOOPBACK)
    # No daemon memory beyond what the master and workers need themselves.
    env.setdefault("SPARK_DAEMON_MEMORY", "512m")
    return processes.spawn([str(spark_home / "bin" / "spark-class"), main, *args], env, log)


def _alive_workers(ui_port: int) -> int:
    with urllib.request.urlopen(f"http://{LOOPBACK}:{ui_port}/json/", timeout=5) as answer:
        state = json.load(answer)
    return sum(1 for worker in state.get("workers", []) if worker.get("state") == "ALIVE")


def start(
    directory: Path = DEFAULT_DIR,
    workers: int = 2,
    cores: int = 1,
    memory: str = "3g",
    timeout: float = 120,
) -> dict:
    directory = directory.resolve()
    directory.mkdir(parents=True, exist_ok=True)
    if status(directory).get("alive"):
        raise ClusterError(f"a cluster already runs from {directory}")
    port, ui_port = free_port(), free_port()
    logs = directory / "logs"
    master = _spark_class(
        MASTER,
        ["--host", LOOPBACK, "--port", str(port), "--webui-port", str(ui_port)],
        logs / "master.log",
    )
    url = f"spark://{LOOPBACK}:{port}"
    state = {"master_url": url, "master_pid": master.pid, "ui_port": ui_port, "worker_pids": []}
    _state_file(directory).write_text(json.dumps(state, indent=2) + "\n")
    try:
        _wait(lambda: port_open(port) and port_open(ui_port), master, timeout, "the master")
        for n in range(workers):
            worker = _spark_class(
                WORKER,
                ["--host", LOOPBACK, "--cores", str(cores), "--memory", memory]
                + ["--webui-port", str(free_port()), "--work-dir", str(directory / f"work{n}")]
                + [url],
                logs / f"worker{n}.log",
            )
            state["worker_pids"].append(worker.pid)
            _state_file(directory).write_text(json.dumps(state, indent=2) + "\n")
        _wait(lambda: _alive_workers(ui_port) == workers, master, timeout, "the workers")
    except ClusterError:
        stop(directory)
        raise
    return state


def _wait(ready, master: subprocess.Popen, timeout: float, what: str) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if master.poll() is not None:
            raise ClusterError(f"the master exited with {master.returncode}")
        try:
            if ready():
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise ClusterError(f"{what} did not come up within {timeout:.0f} s")


def stop(directory: Path = DEFAULT_DIR, timeout: float = 30) -> None:
    path = _state_file(directory.resolve())
    if not path.exists():
        return
    state = json.loads(path.read_text())
    for pid in state["worker_pids"]:
        processes.end(pid, timeout)
    processes.end(state["master_pid"], timeout)
    path.unlink()


def status(directory: Path = DEFAULT_DIR) -> dict:
    path = _state_file(directory.resolve())
    if not path.exists():
        return {}
    state = json.loads(path.read_text())
    try:
        state["alive_workers"] = _alive_workers(state["ui_port"])
        state["alive"] = True
    except OSError:
        state["alive"] = False
    return dict(state)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A local Spark standalone cluster")
    parser.add_argument("action", choices=["start", "stop", "status"])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cores", type=int, default=1, help="per worker")
    parser.add_argument("--memory", default="3g", help="per worker")
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            state = start(args.dir, args.workers, args.cores, args.memory)
            print(f"master {state['master_url']}, {args.workers} workers; logs in {args.dir}/logs")
        elif args.action == "stop":
            stop(args.dir)
        else:
            state = status(args.dir)
            print(json.dumps(state, indent=2) if state else f"no cluster in {args.dir}")
            return 0 if state.get("alive") else 3
    except ClusterError as exc:
        print(f"cluster: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
