"""`method: thrift` and `method: connect` against real servers with Hudi: the
adapter's features (merge-on-read upserts with an ordering field, change
reads, inline compaction, per-model `hoodie.*` settings, the CALL procedures,
dbt docs' catalog with the lake stats)
work the same on both, and a server that is not there fails fast."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from adlake.servers import spark_server
from tests.adapter.functional.security.sockets import listening
from tests.adapter.functional.targets.servers import query, server_profile
from tests.dbt_harness import completed_instants, read_properties

METHODS = ["thrift", "connect"]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """One server per method for the whole module, started when a test first
    needs it (a start costs a JVM's warm-up), all stopped at the end."""
    started: dict[str, tuple[str, int, Path]] = {}

    def server(method: str) -> tuple[str, int, Path]:
        if method not in started:
            lake = tmp_path_factory.mktemp(f"{method}_lake")
            port = spark_server.free_port()
            # Serving Iceberg and Delta too: their jars, extensions and
            # catalogs (Delta's chained into the session catalog), as the
            # embedded session loads them.
            spark_server.start(method, port, lake, formats=("hudi", "iceberg", "delta"))
            started[method] = (method, port, lake)
        return started[method]

    yield server
    for method, _, lake in started.values():
        spark_server.stop(method, lake)
    for method, _, lake in started.values():
        assert spark_server.status(method, lake) is None
        # The Hive client's folders are in the server's own folder, not in
        # /tmp: the catalog's, never removed (a client session's is removed
        # when it closes).
        scratch = spark_server.Files(lake.resolve(), method).scratch
        assert list(scratch.glob("*_resources")), list(scratch.iterdir())


@pytest.fixture(scope="module", params=["session", *METHODS])
def target(request, servers, lake_dir):
    """Each method: the embedded session (no server), then each server."""
    if request.param == "session":
        return "session", None, lake_dir
    return servers(request.param)


EVENTS = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id',
              precombine_key='version', compaction={'delta_commits': 2}) }}
    select id, version, version * 100 as cost
    from (values (1, {{ var('v') }}), (2, {{ var('v') }}), (3, {{ var('v') }}),
                 (4, 5 - {{ var('v') }})) as t(id, version)
"""
# The same table, built beside EVENTS (threads: 2), whose writes only plan
# compactions: EVENTS' inline compaction settings must stay on EVENTS'
# connection, and lake_compact runs the plans.
QUIET = EVENTS.replace("'delta_commits': 2}", "'delta_commits': 2, 'mode': 'schedule'}")
CHANGES = """
    {{ config(materialized='incremental', unique_key='id', precombine_key='version') }}
    select id, version, cost from {{ lake_changes(ref('events')) }} as changes
"""
# The same read into an Iceberg table (its positions in its own snapshots).
ICEBERG_CHANGES = CHANGES.replace("materialized=", "file_format='iceberg', materialized=")
# And into a Delta table (its positions in its commits' user metadata).
DELTA_CHANGES = CHANGES.replace("materialized=", "file_format='delta', materialized=")


def test_lake_features(project, target):
    method, port, lake = target
    if method != "session":
        project.write("profiles.yml", server_profile(method, port, project.schema, threads=2))
    project.model("events", EVENTS)
    project.model("quiet", QUIET)
    project.model("events_changes", CHANGES)
    if method != "session":  # (the tests' embedded session holds Hudi only)
        project.model("iceberg_changes", ICEBERG_CHANGES)
        project.model("delta_changes", DELTA_CHANGES)
    # Each run updates every id (log files, which compaction merges); id 4
    # comes at an older version each time, late, and keeps its first.
    for version in (1, 2, 3):
        project.dbt("run", "--vars", f"{{v: {version}}}")

    def table(name):
        return lake / "warehouse" / f"{project.schema}.db" / name

    def rows(name):
        sql = f"select id, version, cost from {project.schema}.{name}"
        return (
            sorted(tuple(r) for r in project.rows(sql))
            if port is None
            else sorted(query(method, port, sql))
        )

    def actions(name):
        return [action for _, _, action in completed_instants(table(name))]

    props = read_properties(table("events") / ".hoodie" / "hoodie.properties")
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.ordering.fields"] == "version"
    assert rows("events") == [(1, 3, 300), (2, 3, 300), (3, 3, 300), (4, 4, 400)]
    # The compaction that two delta commits trigger (inline), on events only.
    assert actions("events")[:3] == ["deltacommit", "deltacommit", "commit"], actions("events")
    assert actions("quiet") == ["deltacommit"] * 3
    assert list((table("quiet") / ".hoodie" / "timeline").glob("*.compaction.requested"))
    # The change read took each of events' commits once.
    assert rows("events_changes") == rows("events")
    assert len(actions("events_changes")) == 3
    if method != "session":
        # (Named in the session catalog, as every format's table is.)
        iceberg = f"{project.schema}.iceberg_changes"
        assert sorted(query(method, port, f"select id, version, cost from {iceberg}")) == rows(
            "events"
        )
        operations = query(method, port, f"select operation from {iceberg}.snapshots")
        assert len(operations) == 3  # one snapshot a run
        # The Delta twin, named schema.table in the session catalog the
        # server chains Delta's into: the same rows, a version a run, the
        # last MERGE recording the Hudi instant it read up to.
        delta = f"{project.schema}.delta_changes"
        assert sorted(query(method, port, f"select id, version, cost from {delta}")) == rows(
            "events"
        )
        history = sorted(query(method, port, f"describe history {delta}"))
        assert [row[4] for row in history][1:] == ["MERGE", "MERGE"], history
        recorded = json.loads(history[-1][13].split(":", 1)[1])["recorded"]  # userMetadata
        latest = completed_instants(table("events"))[-1][1]
        assert recorded == {f"hoodie.lakehouse.consumed.{project.schema}.events": latest}

    # dbt docs' catalog, with the lake stats, read through the method.
    project.dbt("docs", "generate", "--vars", "{v: 3}")
    catalog = json.loads((project.root / "target" / "catalog.json").read_text())
    assert not catalog["errors"], catalog["errors"]

    def stats(name):
        node = catalog["nodes"][f"model.lake_test.{name}"]
        assert list(node["columns"]) == ["id", "version", "cost"]
        return {key: item["value"] for key, item in node["stats"].items() if item["include"]}

    writes = [a for a in actions("events") if a in ("commit", "deltacommit")]
    assert stats("events")["commits"] == len(writes)
    assert (stats("events")["table_type"], stats("events")["rows"]) == ("MERGE_ON_READ", 4)
    assert stats("events")["read_by_events_changes"].endswith(", up to date")
    assert stats("quiet")["pending_compactions"] == 1
    if method != "session":
        assert (stats("delta_changes")["commits"], stats("delta_changes")["rows"]) == (3, 4)
        assert stats("events")["read_by_delta_changes"].endswith(", up to date")

    # CALL procedures: compaction, cleaning, rollback.
    project.dbt("run-operation", "lake_compact", "--args", "{model: quiet}")
    assert sorted(actions("quiet")) == ["commit"] + ["deltacommit"] * 3
    bad = completed_instants(table("events_changes"))[-1][0]
    project.dbt(
        "run-operation", "lake_rollback", "--args", f"{{model: events_changes, instant: '{bad}'}}"
    )
    assert rows("events_changes") == [(1, 2, 200), (2, 2, 200), (3, 2, 200), (4, 4, 400)]
    assert "rollback" in actions("events_changes")
    project.dbt("run-operation", "lake_clean", "--args", "{model: events}")

    # A dbt unit test: its fixtures become a temporary view, sent by run_query
    # (on Thrift, a statement with no row set to fetch).
    project.model("doubled", "select id, cost * 2 as cost2 from {{ ref('events') }}")
    project.write("models/doubled.yml", UNIT_TEST)
    tested = project.dbt("test", "--select", "test_type:unit", "--vars", "{v: 3}")
    assert [str(r.status) for r in tested.result.results] == ["pass"]


UNIT_TEST = """
unit_tests:
  - name: doubles_the_cost
    model: doubled
    given:
      - input: ref('events')
        rows:
          - {id: 1, version: 1, cost: 3}
    expect:
      rows:
        - {id: 1, cost2: 6}
"""


@pytest.mark.parametrize("method", METHODS)
def test_server_not_running_fails_fast(project, method):
    port = spark_server.free_port()  # nothing listens there
    project.write("profiles.yml", server_profile(method, port, project.schema))
    project.model("one", "select 1 as id")
    started = time.monotonic()
    result = project.dbt("run", expect_ok=False)
    waited = time.monotonic() - started
    message = str(result.exception or result.result)
    assert f"127.0.0.1:{port}" in message, message
    # How to start one, with Spark's own scripts (not this repository's).
    script = {"thrift": "start-thriftserver.sh", "connect": "start-connect-server.sh"}[method]
    assert script in message and "adlake" not in message, message
    # Not a timing assertion on Spark work: the client's own default would
    # retry for ten minutes; fail-fast means well under that.
    assert waited < 120, waited


def other_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("203.0.113.1", 9))  # a route is chosen; no packet is sent
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


@pytest.mark.parametrize("method", METHODS)
def test_server_admits_loopback_clients_only(servers, method):
    _, port, lake = servers(method)
    pid = spark_server.status(method, lake)["pid"]
    bound = listening(pid)
    if method == "thrift":
        # Every socket of the JVM (Thrift port, driver RPC, block manager) on loopback.
        assert {address for address, _ in bound} == {"127.0.0.1"}, bound
        return
    # Spark 3.5's Connect server listens on every interface (no setting binds
    # it); every other socket of its JVM is on loopback, and the interceptor
    # turns away a client that is not.
    assert ("::", port) in bound or ("0.0.0.0", port) in bound, bound
    assert {address for address, p in bound if p != port} == {"127.0.0.1"}, bound
    address = other_address()
    if address is None:
        pytest.skip("no network address besides loopback to connect from")
    with pytest.raises(Exception, match="loopback clients only"):
        query(method, port, "select 1", host=address)
