"""Reading the warehouse on the target dbt builds it on: the embedded session
dbt started in this process, or a Spark Thrift or Spark Connect server, never
an embedded JVM beside a server (it would not see the server's catalog).

The runners pick the target as the project's profiles do: ADLAKE_TARGET
(local, thrift or connect) and ADLAKE_<TARGET>_PORT.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

Query = Callable[[str], list[tuple]]

# The profiles' default ports (profiles/profiles.yml), as ADLAKE_<TARGET>_PORT overrides them.
SERVER_PORTS = {"thrift": 10000, "connect": 15002}


def profile_target() -> tuple[str, str, int]:
    """The profiles' target (ADLAKE_TARGET, default local), its dbt method and port."""
    target = os.environ.get("ADLAKE_TARGET", "local")
    method = {"local": "session"}.get(target, target)
    port = int(os.environ.get(f"ADLAKE_{target.upper()}_PORT", str(SERVER_PORTS.get(target, 0))))
    return target, method, port


def target_reader() -> Callable[[], Any]:
    """A function giving a session on the profiles' target (reader_session)."""
    _, method, port = profile_target()
    return lambda: reader_session(method, port)


def query_function(method: str, port: int | None) -> Query:
    """Rows of a query, on the target's own engine: the embedded session dbt
    started in this process, or a new session on the server."""
    if method == "session":
        from pyspark.sql import SparkSession

        def embedded(sql: str) -> list[tuple]:
            # A child session: fresh file listings, as a reader would see them.
            session = SparkSession.builder.getOrCreate().newSession()
            return [tuple(row) for row in session.sql(sql).collect()]

        return embedded
    if method == "thrift":

        def thrift(sql: str) -> list[tuple]:
            from pyhive import hive

            with hive.connect(host="127.0.0.1", port=port, username="reader") as conn:
                cursor = conn.cursor()
                cursor.execute(sql)
                return [tuple(row) for row in cursor.fetchall()]

        return thrift

    def connect(sql: str) -> list[tuple]:
        from pyspark.sql.connect.session import SparkSession as RemoteSession

        session = RemoteSession(connection=f"sc://127.0.0.1:{port}")
        session.client.disable_reattachable_execute()
        try:
            return [tuple(row) for row in session.sql(sql).collect()]
        finally:
            session.client._channel.close()  # not close(): see the adapter's connect_session

    return connect


class ThriftReader:
    """A Spark session look-alike on a Thrift server, for the toolkit's
    readers that call `.sql(text).collect()` and read rows by name."""

    def __init__(self, port: int) -> None:
        self.port = port

    def sql(self, text: str) -> ThriftReader._Result:
        from pyhive import hive
        from pyspark.sql import Row

        with hive.connect(host="127.0.0.1", port=self.port, username="reader") as conn:
            cursor = conn.cursor()
            cursor.execute(text)
            names = [column[0].split(".")[-1] for column in cursor.description]
            return self._Result(
                [Row(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]
            )

    class _Result:
        def __init__(self, rows: list) -> None:
            self.rows = rows

        def collect(self) -> list:
            return self.rows


def reader_session(method: str, port: int | None):
    """A session to read the warehouse with, on the target's own engine."""
    if method == "session":
        from pyspark.sql import SparkSession

        # The session dbt started in this process; a child reads fresh listings.
        return SparkSession.builder.getOrCreate().newSession()
    if method == "thrift":
        return ThriftReader(int(port or 0))
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    session = RemoteSession(connection=f"sc://127.0.0.1:{port}")
    session.client.disable_reattachable_execute()
    return session
