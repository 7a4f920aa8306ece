"""Connection manager: dbt-spark's, with the embedded session configured for Hudi."""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Mapping
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

from dbt.adapters.contracts.connection import AdapterResponse, Connection, ConnectionState
from dbt.adapters.events.types import SQLQuery, SQLQueryStatus
from dbt.adapters.spark.connections import SparkConnectionManager
from dbt.adapters.spark.session import SessionConnectionWrapper
from dbt_common.events.contextvars import get_node_info
from dbt_common.events.functions import fire_event
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.credentials import LakehouseMethod
from dbt.adapters.lakehouse.formats.hudi.bundle import HudiBundleError
from dbt.adapters.lakehouse.session import connect as connect_session
from dbt.adapters.lakehouse.session import embedded as embedded_session
from dbt.adapters.lakehouse.statements import Statements
from dbt.adapters.lakehouse.storage import probe as store_probe
from dbt.adapters.lakehouse.warm import client as warm_client
from dbt.adapters.lakehouse.writes import memory_staging

if TYPE_CHECKING:
    import agate


WRITE_CONFLICT = "HoodieWriteConflictException"
# Hudi cleans a table after each commit, in every writer, and a writer's clean
# also runs the cleans pending on the timeline: another writer's clean in
# flight included. Two writers then both move that clean to inflight, and the
# second fails creating the instant file the first made (HUDI-8143). The
# write itself had committed: the clean runs after the commit. (Hadoop words
# it "<path> already exists" on S3, "File already exists: <path>" on a disk.)
CLEAN_INSTANT_FILE = re.compile(r"/\d+\.clean(\.inflight|\.requested)?\b")

# Hudi's reader of a table's changes (the hudi_table_changes function, which
# lake_changes() and the scoped data tests call) turns the session's
# vectorized parquet reader off when its scan starts, and leaves it off. A
# plain parquet scan in the same query (a seed, a non-Hudi table), planned
# while it was on, then gets rows where it expects column batches, and the
# query fails with a ClassCastException (UnsafeRow cannot be cast to
# ColumnarBatch). So such a query is planned with the reader off from the
# start, and the session gets its setting back afterwards.
READS_TABLE_CHANGES = re.compile(r"\bhudi_table_changes\s*\(", re.IGNORECASE)
VECTORIZED_PARQUET = "spark.sql.parquet.enableVectorizedReader"

THRIFT_HOW_TO = (
    "Start a Spark Thrift server with the Hudi bundle and its SQL extension and catalog, e.g. "
    "`$SPARK_HOME/sbin/start-thriftserver.sh --driver-class-path hudi-spark3.5-bundle_2.12-1.2.0.jar "
    "--conf spark.sql.extensions=org.apache.spark.sql.hudi.HoodieSparkSessionExtension --conf "
    "spark.sql.catalog.spark_catalog=org.apache.spark.sql.hudi.catalog.HoodieCatalog` "
    "or correct host and port in the profile."
)


def child_session(connection: Connection) -> Any | None:
    """The connection's own Spark session (a child session of the embedded
    one, or a Spark Connect session), whose configuration can be read and set
    without a statement; None on Thrift."""
    return getattr(getattr(connection.handle, "handle", None), "session", None)


def explain_concurrent_failure(message: str) -> str | None:
    """What happened and what to do, for a write that failed because another
    writer of the table was at work (concurrency: optimistic); None for any
    other failure. Hudi's messages name instants and files, not that."""
    if WRITE_CONFLICT in message:
        return (
            "Another writer committed to the same files of this table while this write ran "
            "(concurrency: optimistic). This write was rolled back and changed nothing: run it "
            "again, and it reads what the other writer committed."
        )
    if "already exists" in message and CLEAN_INSTANT_FILE.search(message):
        return (
            "Hudi's clean of this table, which runs once a write has committed, met another "
            "writer's clean of it (concurrency: optimistic) and failed the statement: the "
            "write, if it wrote, is committed, and the other writer completes its clean. "
            "Let one writer of a table clean it: "
            "set hoodie.clean.automatic: 'false' in the others (a job's write options, another "
            "dbt project's server_side_parameters). The models after this one did not run: "
            "run them (running this one again writes its batch again, once with an upsert, "
            "twice with an append)."
        )
    return None


class SessionConf:
    """A connection's SQL settings, read and changed the one way its kind
    allows: on a session of its own (embedded, Spark Connect) through the
    session's configuration, without a statement (each costs 10-15 ms); on a
    Thrift server with `set` statements. The one place that chooses."""

    def __init__(self, manager: LakehouseConnectionManager, auto_begin: bool) -> None:
        self._manager, self._auto_begin = manager, auto_begin
        self._session = child_session(manager.get_thread_connection())

    def _send(self, statement: str, **arguments: str) -> Any:
        sql = self._manager.statements.sql(statement, **arguments)
        _, cursor = self._manager.add_query(sql, self._auto_begin)
        return cursor

    def _rows(self, statement: str, **arguments: str) -> list[tuple[str, str]]:
        rows = self._send(statement, **arguments).fetchall()
        return [(str(row[0]), str(row[1])) for row in rows]

    def all(self) -> dict[str, str]:
        """Every setting the session has a value for."""
        if self._session is not None:
            return {row[0]: row[1] for row in self._session.sql("set").collect()}
        return dict(self._rows("show_settings"))

    def get(self, key: str, default: str) -> str:
        if self._session is not None:
            return str(self._session.conf.get(key, default))
        rows = self._rows("show_setting", key=key)
        value = rows[0][1] if rows else default
        return default if value == "<undefined>" else value

    def change(self, resets: list[str], sets: Mapping[str, str]) -> None:
        """Back to their defaults (`resets`), then `sets`."""
        if self._session is not None:
            for key in resets:
                self._session.conf.unset(key)
            for key, value in sets.items():
                self._session.conf.set(key, value)
            return
        for key in resets:
            self._send("reset_setting", key=key)
        for key, value in sets.items():
            self._send("set_setting", key=key, value=value)


class LakehouseConnectionManager(SparkConnectionManager):
    TYPE = "lakehouse"
    # The adapter's, with a project's statement macros (set by the adapter).
    statements = Statements()
    # The batches this process's embedded sessions hold in memory.
    _staged = memory_staging.MemoryStaging()

    @classmethod
    def get_result_from_cursor(cls, cursor: Any, limit: int | None) -> agate.Table:
        """dbt's, except for a statement with no rows on a Spark Thrift
        server (CREATE VIEW, a command): the server describes a `Result`
        column but sends no row set, and PyHive's fetch then fails with
        "'NoneType' object is not iterable". dbt fetches such a statement's
        result when run_query sends it, as its unit tests do with the view
        of their fixtures; the result is an empty table."""
        from dbt_common.clients.agate_helper import table_from_data_flat

        if cursor.description is None:
            return table_from_data_flat([], [])
        names = [column[0] for column in cursor.description]
        try:
            rows = cursor.fetchmany(limit) if limit else cursor.fetchall()
        except TypeError as exc:
            if "'NoneType' object is not iterable" not in str(exc):
                raise
            rows = []
        return table_from_data_flat(cls.process_results(names, rows), names)

    @contextmanager
    def exception_handler(self, sql: str) -> Generator[None, None, None]:
        try:
            with super().exception_handler(sql):
                yield
        except DbtRuntimeError as exc:
            lost = store_probe.store_lost(exc.msg) or store_probe.connections_exhausted(exc.msg)
            if lost:
                raise DbtRuntimeError(f"{lost}\n{exc.msg.strip()[:1000]}") from exc
            explained = explain_concurrent_failure(exc.msg)
            if explained is None:
                raise
            raise DbtRuntimeError(f"{explained}\n{exc.msg.strip()[:1000]}") from exc

    def execute(
        self, sql: str, auto_begin: bool = False, fetch: bool = False, limit: int | None = None
    ) -> tuple[AdapterResponse, agate.Table]:
        with self._reader_kept(sql, auto_begin):
            return super().execute(sql, auto_begin, fetch, limit)

    @contextmanager
    def _reader_kept(self, sql: str, auto_begin: bool) -> Generator[None, None, None]:
        """Runs a statement that reads a table's changes with the vectorized
        parquet reader off, and gives the session its setting back after
        (READS_TABLE_CHANGES); any other statement as it is."""
        if not READS_TABLE_CHANGES.search(sql):
            yield
            return
        conf = self.session_conf(auto_begin)
        before = conf.get(VECTORIZED_PARQUET, "true")
        conf.change([], {VECTORIZED_PARQUET: "false"})
        try:
            yield
        except Exception:
            # The query's own error is the one to report, not the reset's.
            with suppress(Exception):
                conf.change([], {VECTORIZED_PARQUET: before})
            raise
        conf.change([], {VECTORIZED_PARQUET: before})

    # --- scratch batches in memory (memory_staging) ---------------------------------

    def stages_in_memory(self) -> bool:
        """Whether this thread's connection keeps scratch batches in memory."""
        return memory_staging.embedded_session_of(self.get_thread_connection()) is not None

    def stage_in_memory(self, view: str, sql: str) -> None:
        """Runs `sql` once and holds its rows as the temporary view `view` of
        this connection's session; logged and timed like a statement."""
        connection = self.get_thread_connection()
        session = memory_staging.embedded_session_of(connection)
        if session is None:
            raise DbtRuntimeError(f"{connection.name}: this connection stages on the lake.")
        logged = f"{memory_staging.LOG_PREFIX}{view} */ {sql}"
        with self.exception_handler(sql), self._reader_kept(sql, auto_begin=False):
            fire_event(
                SQLQuery(conn_name=str(connection.name), sql=logged, node_info=get_node_info())
            )
            started = time.perf_counter()
            self._staged.stage(session, view, sql)
            fire_event(
                SQLQueryStatus(
                    status="OK", elapsed=time.perf_counter() - started, node_info=get_node_info()
                )
            )

    def cleanup_all(self) -> None:
        super().cleanup_all()
        # The end of a dbt command: the first one of a session recording its
        # class-data archive has the JVM write it (session/class_data.py).
        embedded_session.write_class_data()

    @classmethod
    def _close_handle(cls, connection: Connection) -> None:
        session = memory_staging.embedded_session_of(connection)
        if session is not None:
            cls._staged.release(session)
        super()._close_handle(connection)

    def drop_staged(self, view: str) -> None:
        session = memory_staging.embedded_session_of(self.get_thread_connection())
        if session is not None:
            self._staged.drop(session, view)

    def session_conf(self, auto_begin: bool = False) -> SessionConf:
        """This thread's connection's SQL settings (SessionConf)."""
        return SessionConf(self, auto_begin)

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        if connection.state == ConnectionState.OPEN:
            return connection
        creds = connection.credentials
        if creds.method == LakehouseMethod.CONNECT:
            remote = connect_session.ConnectConnection(creds, creds.server_side_parameters)
            connection.handle = connect_session.ConnectConnectionWrapper(remote)
            connection.state = ConnectionState.OPEN
            return connection
        if creds.method == LakehouseMethod.THRIFT:
            connect_session.check_reachable(
                creds.host, creds.port, creds.connect_timeout, "Spark Thrift server", THRIFT_HOW_TO
            )
        if creds.method != LakehouseMethod.SESSION:
            return super().open(connection)
        if warm_client.applies(creds):
            # The lake's warm server; None: its jars cannot be had here.
            warm = warm_client.open_connection(creds)
            if warm is not None:
                connection.handle = connect_session.ConnectConnectionWrapper(warm)
                connection.state = ConnectionState.OPEN
                return connection
        try:
            root = embedded_session.root_session(
                creds.lake_dir,
                creds.hudi_jar,
                creds.master,
                creds.spark_conf,
                creds.lake_lock_timeout,
            )
        except HudiBundleError as exc:
            raise DbtRuntimeError(str(exc)) from exc
        handle = embedded_session.EmbeddedConnection(root, creds.server_side_parameters)
        # dbt-spark's wrapper handles statement clean-up and bindings; we give it
        # a connection whose cursors run on this connection's own child session.
        connection.handle = SessionConnectionWrapper(handle)
        connection.state = ConnectionState.OPEN
        return connection
