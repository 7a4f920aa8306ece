"""`method: thrift`: the same models against a real Spark Thrift server with Hudi."""

import socket

import pytest
import yaml

from adlake.servers import spark_server
from tests.adapter.functional.security.sockets import listening
from tests.dbt_harness import completed_instants, read_properties


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def thrift_server(tmp_path_factory):
    lake = tmp_path_factory.mktemp("thrift_lake")
    port = free_port()
    pid = spark_server.start(port, lake)
    yield port, lake, pid
    spark_server.stop(lake)


def test_thrift_server_listens_on_loopback_only(thrift_server):
    # Every socket of the server's JVM: the Thrift port and the driver's own
    # (RPC, block manager), read from /proc.
    port, _, pid = thrift_server
    bound = listening(pid)
    assert ("127.0.0.1", port) in bound, bound
    assert {address for address, _ in bound} == {"127.0.0.1"}, bound


def test_upsert_with_precombine_over_thrift(project, thrift_server):
    port, lake, _ = thrift_server
    project.write(
        "profiles.yml",
        yaml.safe_dump(
            {
                "lake_test": {
                    "target": "thrift",
                    "outputs": {
                        "thrift": {
                            "type": "lakehouse",
                            "method": "thrift",
                            "host": "127.0.0.1",
                            "port": port,
                            "user": "dbt",
                            "schema": project.schema,
                            "threads": 1,
                        }
                    },
                }
            }
        ),
    )
    project.model(
        "events",
        """
        {{ config(materialized='incremental', table_type='mor', unique_key='id',
                  precombine_key='version') }}
        select * from (values (1, {{ var('v') }}, {{ var('v') }} * 100)) as t(id, version, cost)
    """,
    )
    project.dbt("run", "--vars", "{v: 2}")
    project.dbt("run", "--vars", "{v: 1}")  # an older version, arriving late

    table = lake / "warehouse" / f"{project.schema}.db" / "events"
    props = read_properties(table / ".hoodie" / "hoodie.properties")
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.ordering.fields"] == "version"
    assert [a for _, _, a in completed_instants(table)] == ["deltacommit", "deltacommit"]

    from pyhive import hive

    with hive.connect(host="127.0.0.1", port=port, username="dbt") as conn:
        cursor = conn.cursor()
        cursor.execute(f"select version, cost from {project.schema}.events")
        assert cursor.fetchall() == [(2, 200)]
