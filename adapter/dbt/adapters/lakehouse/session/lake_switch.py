"""One embedded Spark JVM for several lakes, one after the other.

pyspark gives a process one JVM, Spark gives that JVM one SparkContext at a
time, and the embedded session keeps a lake's catalog inside the lake (files
in its folder, or a Derby database: lake/catalog.py). A process that runs dbt for several projects, each on its own
lake (dbt's adapter test suite, a notebook, an orchestrator calling dbt
in-process), moves its session to the next lake when none of its statements
is running on the current one:

1. the current lake's lock is released (its Derby database, if it has one,
   shut down): another process can take that lake at once;
2. when the next lake's settings are the current ones but for the lake's
   folder (the usual case: the same profile, another project), the Spark
   context goes on and the next lake gets a session of its own on it: its
   own session state (catalog client, warehouse, Hadoop settings), the last
   lake's taken off the context's listeners. Otherwise the context stops
   and a new one starts in the same JVM with the next lake's settings. Either
   way the next lake's session runs under its lake lock. (A context kept
   keeps its scratch folder, `spark.local.dir`, in the lake it started on; a
   move from a context whose scratch folder was removed starts a new one.)

A move and the new lake's first catalog call take a few hundredths of a
second on a lake whose catalog is a folder, about 0.7 s on one whose catalog
is a Derby database (Hive starting on it; a new one is a copy of an empty
one: session/catalog_template.py), where a JVM start is 10-20 s (`python -m
adlake.bench.lake_moves`; docs/freshness-and-benchmarks.md, "Several
projects in one process"). What the JVM was launched with
stays (its heap, jars, class path and flags): a profile that needs other
launch settings gets an error naming them rather than a session without
them.

What Hive, Hudi and Derby keep for the life of the JVM is put right (each
was seen to write or read the first lake's catalog from the next lake's
session):

- Hive keeps a metastore client per thread (Hive's thread-local client, its
  handler's thread-local store). A thread that reached the first lake's
  catalog kept using that database, and closing its old client reopened the
  first lake's database after it was shut down. java/OwnConnectionUrl.java,
  a connection URL hook, with Hive's `hive.hmshandler.force.reload.conf`,
  points every handler at the current lake's database before each call,
  from the JVM's first move on. (With it, each call restarts the thread's
  store: no cost was measured on 80 catalog reads and 10 table creates, but
  a JVM that never moves has no use for it.)
- Hudi records its tables in the catalog through one Hive client per JVM
  (HiveClientUtils), made on first use: it is forgotten.
- Hudi's Hive sync opens the metastore with Hive's default URL, a
  `metastore_db` in Derby's home: Derby is shut down (which also frees the
  lake's database for other processes) and started again at home in the
  next lake.
- Hive's pools of connections to the catalog database (its store's and its
  transaction handler's, one each per JVM) are closed and forgotten: the
  transaction handler's, which a dropped schema reaches, reopened the first
  lake's database from every later lake's session.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbt.adapters.events.logging import AdapterLogger
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.lake import lock as lake_lock
from dbt.adapters.lakehouse.session import local_fs

logger = AdapterLogger("Lakehouse")

HOOK_CLASS = "lakehouse.hive.OwnConnectionUrl"
HOOK_SOURCE = Path(__file__).parents[1] / "java" / "OwnConnectionUrl.java"

# The Hive settings that make every metastore call ask the hook.
HIVE_SETTINGS = {
    "spark.hadoop.hive.metastore.ds.connection.url.hook": HOOK_CLASS,
    "spark.hadoop.hive.hmshandler.force.reload.conf": "true",
}

HADOOP_PREFIX = "spark.hadoop."
# Stands for the lake's own folder in settings compared across lakes.
LAKE = "<lake>"

# Hudi's one Hive client per JVM (a Scala object's field).
HUDI_CLIENT_HOLDER = "org.apache.spark.sql.hive.HiveClientUtils$"
HUDI_CLIENT_FIELD = "client"
OBJECT_STORE = "org.apache.hadoop.hive.metastore.ObjectStore"
# Hive's connection pools to the catalog database, static fields of these.
HIVE_POOLS = {
    OBJECT_STORE: ("pmf",),
    "org.apache.hadoop.hive.metastore.txn.TxnHandler": ("connPool", "connPoolMutex"),
}
# Derby's answers to a shutdown of its engine, and of one database, as asked.
DERBY_STOPPED = "XJ015"
DERBY_DATABASE_CLOSED = "08006"


def hook_jar(cache_dir: Path, notify: Callable[[str], None]) -> Path | None:
    """The hook's jar in `cache_dir` (compiled once, against the Hive metastore
    jar pyspark ships), or None when it cannot be built here (`notify` is told
    why; the session then stays on its first lake)."""
    import pyspark

    spark_jars = Path(pyspark.__file__).parent / "jars"
    metastore = sorted(spark_jars.glob("hive-metastore-*.jar"))
    javac = local_fs._javac()
    if not metastore or javac is None:
        notify(
            "one lake per process: no "
            + ("Hive metastore jar in pyspark" if not metastore else "javac")
            + " to build the metastore hook a move to another lake needs"
        )
        return None
    digest = hashlib.sha256(HOOK_SOURCE.read_bytes() + metastore[-1].name.encode()).hexdigest()
    target = cache_dir / f"lakehouse-metastore-hook-{digest[:12]}.jar"
    if target.is_file():
        return target
    try:
        local_fs.compile_jar(javac, HOOK_SOURCE, os.pathsep.join([str(spark_jars / "*")]), target)
    except local_fs.CompileError as error:
        notify(f"one lake per process: {error}")
        return None
    return target


def launch_settings(conf: dict[str, str], lake: Path, prefixes: tuple[str, ...]) -> dict[str, str]:
    """The settings the JVM is launched with, the lake's own folder put aside
    (the Derby home and scratch folder in them are the lake's, and may differ)."""
    return _lake_aside(
        {key: value for key, value in conf.items() if key.startswith(prefixes)}, lake
    )


def _lake_aside(settings: dict[str, str], lake: Path) -> dict[str, str]:
    """`settings` with the lake's folder in their values put aside, to
    compare them with another lake's."""
    return {key: value.replace(str(lake), LAKE) for key, value in settings.items()}


def differences(launched: dict[str, str], wanted: dict[str, str]) -> list[str]:
    """The launch settings a session for another lake would need changed."""
    return sorted(
        key for key in set(launched) | set(wanted) if launched.get(key) != wanted.get(key)
    )


def use_catalog(metastore_url: str) -> None:
    """Point every metastore handler of the JVM at this lake's catalog
    database (java/OwnConnectionUrl.java), before the session's first call."""
    from pyspark import SparkContext

    jvm: Any = SparkContext._jvm
    jvm.lakehouse.hive.OwnConnectionUrl.use(metastore_url)


def same_context(
    context_conf: dict[str, str],
    context_lake: Path,
    conf: dict[str, str],
    lake: Path,
    launch_prefixes: tuple[str, ...],
) -> bool:
    """Whether the session for `lake`, with the settings `conf`, can run on
    the Spark context started with `context_conf` for `context_lake`: every
    setting the same but for the lake's folder in it, and the context's
    scratch folder still there. (Not compared: the JVM's launch settings,
    which `differences` has, and the metastore hook's, which the session
    brings.)"""

    def shape(settings: dict[str, str], folder: Path) -> dict[str, str]:
        compared = {
            key: value
            for key, value in settings.items()
            if key not in HIVE_SETTINGS and not key.startswith(launch_prefixes)
        }
        return _lake_aside(compared, folder)

    scratch = context_conf.get("spark.local.dir")
    if scratch is not None and not Path(scratch).is_dir():
        return False
    return shape(context_conf, context_lake) == shape(conf, lake)


def session_on_context(conf: dict[str, str], catalog_folder: Path | None = None) -> Any:
    """A session for the next lake on the running Spark context (same_context
    said it may, or the context just started): a SparkSession of its own
    state (catalog, warehouse, Hadoop settings) made with the lake's
    settings, the process's session from now on. `catalog_folder`: the
    lake keeps its catalog there (lake/catalog.py), not in Hive's metastore."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    context = SparkContext._active_spark_context
    assert context is not None and context._jvm is not None
    jvm = context._jvm
    options = jvm.java.util.HashMap()
    hadoop = context._jsc.hadoopConfiguration()
    for key, value in {**conf, **HIVE_SETTINGS}.items():
        if key.startswith("spark.sql."):
            options.put(key, value)
        elif key.startswith(HADOOP_PREFIX):
            # Into the context's Hadoop settings too: Hive's and Hudi's
            # clients made from those (not the session's) find this lake's
            # catalog.
            options.put(key[len(HADOOP_PREFIX) :], value)
            hadoop.set(key[len(HADOOP_PREFIX) :], value)
    sessions = jvm.org.apache.spark.sql.SparkSession
    # The session the context runs (for its Spark session extensions).
    previous = sessions.getDefaultSession()
    sessions.clearActiveSession()
    sessions.clearDefaultSession()
    if catalog_folder is not None:
        # The lender of the context and its extensions to the new session.
        lender = previous.get() if previous.isDefined() else sessions(context._jsc.sc(), options)
        own = jvm.lakehouse.catalog.FolderCatalog.session(lender, options, str(catalog_folder))
    else:
        # A session made on a context with no default one has state of its own.
        own = sessions(context._jsc.sc(), options)
    sessions.setDefaultSession(own)
    sessions.setActiveSession(own)
    session = SparkSession(context, jsparkSession=own)
    SparkSession._instantiatedSession = session
    SparkSession._activeSession = session
    return session


def leave(session: Any | None, metastore_url: str, next_lake: Path, keep_context: bool) -> None:
    """Stop the session (None: it was stopped) and let go of its lake: its
    catalog database (`metastore_url`; empty: the lake's catalog is a
    folder), Hudi's client of that catalog, and the lake's lock;
    Derby starts again at home in `next_lake`. `keep_context`: the session's
    Spark context goes on, for the next lake's session (session_on_context)."""
    from py4j.protocol import Py4JError
    from pyspark import SparkContext

    jvm = SparkContext._jvm
    # Found before anything stops: without it the next lake's Hudi tables
    # would be recorded in this lake's catalog.
    try:
        holder, field = _hudi_client_field(jvm)
    except Py4JError as error:
        raise DbtRuntimeError(
            "This process's Spark session cannot move to another lake: the Hudi bundle has no "
            f"{HUDI_CLIENT_HOLDER}.{HUDI_CLIENT_FIELD} to reset ({error}). Run the commands of "
            "each lake in a process of their own."
        ) from None
    if session is not None and keep_context:
        stop_status_listener(session)
    elif session is not None:
        session.stop()
    field.set(holder, None)
    if metastore_url:  # not a lake whose catalog is a folder
        forget_catalog_pools(jvm, close_in_background=True)
    if metastore_url.startswith("jdbc:derby:"):
        _restart_derby(jvm, next_lake)
    lake_lock.release()


def stop_status_listener(session: Any) -> None:
    """Take the session's SQL listener off the context's listener bus: each
    session state adds one, which would otherwise go on handling every later
    lake's queries."""
    status = session._jsparkSession.sharedState().statusStore().listener()
    if status.isDefined():
        session.sparkContext._jsc.sc().removeSparkListener(status.get())


def _hudi_client_field(jvm: Any) -> tuple[Any, Any]:
    field = static_field(jvm, HUDI_CLIENT_HOLDER, HUDI_CLIENT_FIELD)
    return field.getDeclaringClass().getField("MODULE$").get(None), field


def forget_catalog_pools(jvm: Any, close_in_background: bool = False) -> None:
    """Close Hive's pools of connections to the catalog database, and forget
    them, so that the next catalog call opens the current lake's database.
    Hive keeps one of each per JVM, made with the URL of the first call that
    needed it: its store's (ObjectStore), and its transaction handler's
    (TxnHandler, which a dropped schema reaches through Hive's ACID
    listener). Left open, each reopened the lake's database after the move
    had shut it down, and the transaction handler's wrote to it from the next
    lake's session.

    `close_in_background`: the forgotten pools are closed on a thread of
    their own. Closing the store's (DataNucleus' factory, its caches and
    connections) is most of a move's time, and nothing waits for it: once
    forgotten, no call reaches a pool, and Derby shuts their connections down
    with the lake's database all the same."""
    pools = []
    for class_name, fields in HIVE_POOLS.items():
        for name in fields:
            field = static_field(jvm, class_name, name)
            pool = field.get(None)
            if pool is not None:
                pools.append((f"{class_name}.{name}", pool))
                field.set(None, None)
    # The settings the store's pool was made with: forgotten with it, so that
    # the next store makes a pool rather than closing this one again.
    static_field(jvm, OBJECT_STORE, "prop").set(None, None)
    if close_in_background:
        threading.Thread(
            target=_close, args=(pools,), name="close-catalog-pools", daemon=True
        ).start()
    else:
        _close(pools)


def _close(pools: list[tuple[str, Any]]) -> None:
    from py4j.protocol import Py4JError

    for name, pool in pools:
        try:
            pool.close()
        except Py4JError as error:  # forgotten, and the database shut down, all the same
            logger.debug(f"Hive's {name} not closed: {error}")


def static_field(jvm: Any, class_name: str, name: str) -> Any:
    """A static field of a JVM class, made accessible."""
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    field = jvm.java.lang.Class.forName(class_name, True, loader).getDeclaredField(name)
    field.setAccessible(True)
    return field


def _restart_derby(jvm: Any, lake: Path) -> None:
    """Shut Derby down, so that another process may open the lake's catalog
    database, and have it start again at home in the next lake.

    Its home matters beside the URL the session gives: Hudi's Hive sync opens
    the metastore with Hive's default URL (`metastore_db`, in Derby's home),
    which a Derby started in the first lake would keep resolving there."""
    state = shut_down_derby(jvm, "jdbc:derby:;shutdown=true")
    if state != DERBY_STOPPED:
        logger.debug(f"Derby not shut down: SQL state {state}")
    jvm.java.lang.System.setProperty("derby.system.home", str(lake))
    # A Derby shut down takes connections again once its driver is loaded anew.
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    driver = jvm.java.lang.Class.forName("org.apache.derby.jdbc.EmbeddedDriver", True, loader)
    driver.newInstance()


def shut_down_derby(jvm: Any, url: str) -> str | None:
    """Ask Derby to shut down what `url` names (the engine, or a database):
    the SQL state of its answer, which is an error when it did (XJ015, 08006);
    None when it answered otherwise."""
    from py4j.protocol import Py4JError, Py4JJavaError

    try:
        jvm.java.sql.DriverManager.getConnection(url)
    except Py4JJavaError as error:
        try:
            return str(error.java_exception.getSQLState())
        except Py4JError:  # not an SQLException
            return None
    return None
