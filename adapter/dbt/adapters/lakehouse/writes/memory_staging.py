"""Scratch batches held in the embedded session's memory instead of parquet
tables on the lake.

A write stages its model's result once (macros/formats/hudi/writes.sql): the
emptiness probe, the write and the deletes must all see the same batch, and a
write changes what a model reading its own table, or the upstream it
consumes, would return. On the lake that is a parquet table: a drop, a CREATE
TABLE AS SELECT through the metastore, files written and read back, a drop
and an emptied folder after the write, about a third of a second a model on
a 2-core machine beside the query itself.

In the embedded session on a `local` master the batch is instead checkpointed
in Spark's block manager (`DataFrame.localCheckpoint`, memory first, spilled
to the local disk) and named by a temporary view of the connection's own
session. The checkpoint cuts the batch off from the tables it was read from:
unlike a cached query, which Spark recomputes once a write refreshes a table
it reads, it keeps the rows it was staged with whatever is written after.
A run killed midway leaves nothing on the lake (the views and blocks die
with the JVM), where a killed scratch table's files are taken over by the
next run's overwrite.

The profile's `stage_in_memory: false` keeps them on the lake. Not on a
cluster (an executor removed by dynamic allocation takes its
checkpoint blocks with it), nor through Thrift or Spark Connect (no
DataFrame handle on the server's session; Spark 3.5's Connect client has no
localCheckpoint): there the scratch tables stay on the lake.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

from dbt.adapters.contracts.connection import Connection

from dbt.adapters.lakehouse.session.embedded import EmbeddedConnection

# How a staged query is logged, before its SQL (what dbt's log and the
# benchmarks' statement timings see of it).
LOG_PREFIX = "/* lakehouse: staged in memory as "
# Spark's thread-local property that names the RDDs a thread creates.
CALL_SITE = "callSite.short"


def embedded_session_of(connection: Connection) -> Any | None:
    """The connection's own child session when it is the embedded one on a
    `local` master and the profile leaves stage_in_memory on; None otherwise
    (Thrift, Spark Connect, a warm server, a cluster master)."""
    if not getattr(connection.credentials, "stage_in_memory", False):
        return None
    handle = getattr(connection.handle, "handle", None)
    if not isinstance(handle, EmbeddedConnection):
        return None
    master = handle.session.sparkContext.master
    return handle.session if master.startswith("local") else None


class MemoryStaging:
    """The batches staged in memory, by session and view, so that a drop frees
    their blocks at once rather than when the JVM's garbage collector finds
    the Dataset unreachable (a stream would otherwise keep every batch)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._blocks: dict[tuple[int, str], Any] = {}

    def stage(self, session: Any, view: str, sql: str) -> None:
        """Runs `sql` once and holds its rows as the temporary view `view`."""
        self.drop(session, view)  # (a batch a failed write left behind)
        context = session.sparkContext
        # The RDDs the query makes are named by this (a thread's own Spark
        # property), so that those a failed query left marked for keeping
        # are found and freed; Spark's UI shows it as their call site.
        marker = f"lakehouse staging {view} {uuid.uuid4().hex[:8]}"
        context.setLocalProperty(CALL_SITE, marker)
        try:
            # Eager: computed inside the query's own SQL execution, whose
            # metrics (rows, files read) then count it.
            batch = session.sql(sql).localCheckpoint(eager=True)
        except Exception:
            self._free_marked(context, marker)
            raise
        finally:
            context.setLocalProperty(CALL_SITE, None)
        batch.createOrReplaceTempView(view)
        # The checkpointed RDD under the batch's plan (a LogicalRDD) holds the blocks.
        rows = batch._jdf.queryExecution().analyzed().rdd()
        with self._lock:
            self._blocks[(id(session), view)] = rows

    @staticmethod
    def _free_marked(context: Any, marker: str) -> None:
        kept = context._jsc.sc().getPersistentRDDs().values().iterator()
        while kept.hasNext():
            rdd = kept.next()
            if rdd.getCreationSite() == marker:
                rdd.unpersist(False)

    def release(self, session: Any) -> None:
        """Frees what a session still holds as its connection closes: a batch
        whose write failed is not dropped by the materialization."""
        with self._lock:
            held = [key for key in self._blocks if key[0] == id(session)]
            blocks = [self._blocks.pop(key) for key in held]
        for batch in blocks:
            batch.unpersist(False)

    def drop(self, session: Any, view: str) -> None:
        session.catalog.dropTempView(view)
        with self._lock:
            blocks = self._blocks.pop((id(session), view), None)
        if blocks is not None:
            blocks.unpersist(False)
