"""A dbt project on a lake of its own whose dbt commands are processes of
their own with warm start on, as a user's are: they share the lake's warm
Spark server, which a test reads the tables through and stops by pid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import yaml

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.warm import state as warm_state
from tests.dbt_harness import hudi_jar

BIN = Path(sys.executable).parent


class WarmLake:
    """A dbt project on a lake of its own, and the servers seen on it."""

    def __init__(self, root: Path, models: dict[str, str]) -> None:
        self.root = root
        self.lake = root / "lake"
        self.project = root / "project"
        self.servers: set[tuple[int, int]] = set()
        (self.project / "models").mkdir(parents=True)
        (self.project / "dbt_project.yml").write_text(
            yaml.safe_dump(
                {"name": "warm", "version": "1.0", "config-version": 2, "profile": "warm"}
                | {"model-paths": ["models"]}
            )
        )
        for name, sql in models.items():
            (self.project / "models" / f"{name}.sql").write_text(sql)
        self.profile()

    def profile(self, **fields) -> None:
        output = {"type": "lakehouse", "method": "session", "schema": "warm", "threads": 1}
        output |= {"lake_dir": str(self.lake), "hudi_jar": str(hudi_jar())}
        output |= {"lake_lock_timeout": 5, "warm_idle_timeout": 300, "master": "local[2]"}
        output |= fields
        (self.project / "profiles.yml").write_text(
            yaml.safe_dump({"warm": {"target": "dev", "outputs": {"dev": output}}})
        )

    def env(self, **overrides: str) -> dict[str, str]:
        # Unbuffered: a test reads dbt's lines as they come, to kill it mid-write.
        env = {**os.environ, "LAKEHOUSE_WARM_START": "1", "PYTHONUNBUFFERED": "1"}
        return env | overrides

    def start(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """A dbt command in a process group of its own, its output in a pipe."""
        return subprocess.Popen(
            [str(BIN / "dbt"), *args, "--project-dir", str(self.project)]
            + ["--profiles-dir", str(self.project)],
            cwd=self.project,
            env=env or self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def dbt(self, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
        process = self.start(*args, env=env)
        output, _ = process.communicate(timeout=300)
        self.remember()
        return process.returncode, output

    def run(self, batch: int, pause_ms: int = 0) -> tuple[int, str]:
        return self.dbt("run", "--vars", json.dumps({"batch": batch, "pause_ms": pause_ms}))

    def state(self) -> warm_state.ServerState | None:
        state = warm_state.read_state(self.lake)
        if state is not None:
            self.servers.add((state.pid, state.jvm_pid))
        return state

    def remember(self) -> None:
        self.state()

    def serving(self) -> warm_state.ServerState:
        """The live server, started by a `dbt debug` when there is none."""
        state = self.state()
        if state is None or not warm_state.usable(state):
            code, output = self.dbt("debug")
            assert code == 0, output
            state = self.state()
        assert state is not None
        return state

    def query(self, sql: str) -> tuple:
        """The first row of `sql`, on the lake's server, with its token."""
        return self.rows(sql)[0]

    def rows(self, sql: str) -> list[tuple]:
        """The rows of `sql`, on the lake's server, with its token."""
        from pyspark.sql.connect.session import SparkSession

        state = self.state()
        assert state is not None, "no warm server to read the table through"
        url = f"sc://127.0.0.1:{state.port}/;{warm_state.TOKEN_HEADER}={state.token}"
        session = SparkSession(connection=url)
        session.client.disable_reattachable_execute()
        try:
            return [tuple(row) for row in session.sql(sql).collect()]
        finally:
            session.client._channel.close()  # not close(): see session/connect.py

    def stop_all(self) -> None:
        state = self.state()
        if state is not None:
            warm_state.terminate(state, timeout=20)
        for pid, jvm_pid in self.servers:
            for each in (pid, jvm_pid):
                if processes.alive(each):
                    os.kill(each, signal.SIGKILL)
