"""Connection manager: dbt-spark's, with the embedded session configured for Hudi."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Generator

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.connections import SparkConnectionManager, SparkConnectionMethod
from dbt.adapters.spark.session import SessionConnectionWrapper
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import embedded_session
from dbt.adapters.lakehouse.hudi_bundle import HudiBundleError


WRITE_CONFLICT = "HoodieWriteConflictException"


class LakehouseConnectionManager(SparkConnectionManager):
    TYPE = "lakehouse"

    @contextmanager
    def exception_handler(self, sql: str) -> Generator[None, None, None]:
        try:
            with super().exception_handler(sql):
                yield
        except DbtRuntimeError as exc:
            if WRITE_CONFLICT not in exc.msg:
                raise
            # Hudi's message names instants, not what happened or what to do.
            raise DbtRuntimeError(
                "Another writer committed to the same files of this table while this write ran "
                "(concurrency: optimistic). This write was rolled back and changed nothing: run it "
                f"again, and it reads what the other writer committed.\n{exc.msg.strip()[:1000]}"
            ) from exc

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        if connection.state == ConnectionState.OPEN:
            return connection
        creds = connection.credentials
        if creds.method != SparkConnectionMethod.SESSION:
            return super().open(connection)
        try:
            root = embedded_session.root_session(
                creds.lake_dir, creds.hudi_jar, creds.master, creds.spark_conf, creds.lake_lock_timeout
            )
        except HudiBundleError as exc:
            raise DbtRuntimeError(str(exc)) from exc
        handle = embedded_session.EmbeddedConnection(root, creds.server_side_parameters)
        # dbt-spark's wrapper handles statement clean-up and bindings; we give it
        # a connection whose cursors run on this connection's own child session.
        connection.handle = SessionConnectionWrapper(handle)  # type: ignore[arg-type]
        connection.state = ConnectionState.OPEN
        return connection
