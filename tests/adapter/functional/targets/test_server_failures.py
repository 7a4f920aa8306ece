"""A Spark Connect server with a token and TLS, a wrong token, and a server
killed in the middle of a run."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from adlake.servers import spark_server
from tests.adapter.functional.targets.servers import facts_model, query, server_profile
from tests.dbt_harness import completed_instants, failures

TOKEN_ENV = "ADLAKE_TEST_CONNECT_TOKEN"
GOOD, WRONG = "tok-Jq8v2-good", "tok-Zx41p-wrong"


def files_holding(secret: str, *folders: Path) -> list[Path]:
    return [
        path
        for folder in folders
        for path in folder.rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    ]


def test_token_over_tls(project, tmp_path_factory, monkeypatch):
    lake = tmp_path_factory.mktemp("connect_token")
    port = spark_server.free_port()
    monkeypatch.setenv("ADLAKE_SERVER_TOKEN", GOOD)
    pid = spark_server.start("connect", port, lake, token_env="ADLAKE_SERVER_TOKEN")
    try:
        profile = server_profile(
            "connect",
            port,
            project.schema,
            token="{{ env_var('" + TOKEN_ENV + "') }}",
            use_ssl=True,
            tls_ca_file=str(lake / "tls" / "cert.pem"),
        )
        project.write("profiles.yml", profile)
        project.model("one", "{{ config(materialized='table') }} select 41 + 1 as answer")
        monkeypatch.setenv(TOKEN_ENV, GOOD)
        project.dbt("run")
        assert (lake / "warehouse" / f"{project.schema}.db" / "one").is_dir()

        monkeypatch.setenv(TOKEN_ENV, WRONG)
        result = project.dbt("run", expect_ok=False)
        message = str(result.exception or [r.message for r in result.result])
        assert "refused this connection's token" in message, message
        assert "UNAUTHENTICATED" in message, message

        # No secret in dbt's files or the server's, nor on its command line.
        for secret in (GOOD, WRONG):
            assert secret not in message
            assert not files_holding(secret, project.root, lake), secret
            assert secret.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
        # The server's own port, plaintext and without the token: refused too.
        served = int(
            Path(lake / "connect.properties")
            .read_text()
            .split("spark.connect.grpc.binding.port=")[1]
            .split()[0]
        )
        assert served != port
        with pytest.raises(Exception, match="invalid or missing token"):
            query("connect", served, "select 1")
    finally:
        spark_server.stop("connect", lake)


FACTS = facts_model(50)


@pytest.mark.parametrize("method", ["thrift", "connect"])
def test_server_killed_mid_run(project, tmp_path_factory, method):
    lake = tmp_path_factory.mktemp(f"{method}_killed")
    port = spark_server.free_port()
    spark_server.start(method, port, lake)
    project.write("profiles.yml", server_profile(method, port, project.schema))
    project.model("facts", FACTS)
    project.dbt("run", "--vars", "{run: 1}")
    timeline = lake / "warehouse" / f"{project.schema}.db" / "facts" / ".hoodie" / "timeline"
    try:
        outcome = {}
        run = threading.Thread(
            target=lambda: outcome.update(
                result=project.dbt("run", "--vars", "{run: 2}", expect_ok=False)
            )
        )
        run.start()
        # Killed while the write is in flight (its instant requested, not complete).
        deadline = time.monotonic() + 300
        while len(list(timeline.glob("*.deltacommit.inflight"))) < 2:
            assert time.monotonic() < deadline, "the write never started"
            time.sleep(0.1)
        os.kill(spark_server.status(method, lake)["pid"], signal.SIGKILL)
        run.join(300)
        assert not run.is_alive(), "the run did not end after its server died"
        assert not outcome["result"].success
        spark_server.stop(method, lake)

        port = spark_server.free_port()
        spark_server.start(method, port, lake)
        project.write("profiles.yml", server_profile(method, port, project.schema))
        project.dbt("run", "--vars", "{run: 3}")
        rows = query(
            method, port, f"select sum(value), count(*), max(run) from {project.schema}.facts"
        )
        assert rows == [(sum(range(1, 51)) * 3, 50, 3)]
        assert [a for _, _, a in completed_instants(timeline.parent.parent)].count(
            "deltacommit"
        ) == 2
        # An Iceberg or a Delta model on a server started without its
        # format: said so, and how, as the model starts.
        for fmt in ("iceberg", "delta"):
            project.model(
                f"{fmt}_facts",
                f"{{{{ config(materialized='table', file_format='{fmt}') }}}}\nselect 1 as id",
            )
            failed = " ".join(failures(project.dbt("run", "-s", f"{fmt}_facts", expect_ok=False)))
            assert f"The Spark {method} server of this target holds hudi, not {fmt}" in failed
            assert f"--table-formats hudi,{fmt}" in failed
    finally:
        spark_server.stop(method, lake)
