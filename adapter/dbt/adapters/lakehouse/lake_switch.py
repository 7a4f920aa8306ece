"""One embedded Spark JVM for several lakes, one after the other.

pyspark gives a process one JVM, Spark gives that JVM one SparkContext at a
time, and the embedded session keeps a lake's catalog in a Derby database
inside the lake. A process that runs dbt for several projects, each on its own
lake (dbt's adapter test suite, a notebook, an orchestrator calling dbt
in-process), moves its session to the next lake when none of its statements
is running on the current one:

1. the current lake's SparkContext stops, its Derby database is shut down and
   its lake lock released: another process can take that lake at once;
2. a new SparkContext starts in the same JVM with the next lake's settings
   (warehouse, catalog database, scratch folder), under that lake's lock.

The move is about half a second where a JVM start is 10-20 s, and a new
lake's catalog about one more (docs/freshness-and-benchmarks.md, "Several
projects in one process"). What the JVM was launched with stays (its heap,
jars, class path and flags): a profile that needs other launch settings gets
an error naming them rather than a session without them.

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
- The pool of catalog connections (Hive's one per JVM) is closed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbt.adapters.events.logging import AdapterLogger
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import lake_lock, local_fs

logger = AdapterLogger("Lakehouse")

HOOK_CLASS = "lakehouse.hive.OwnConnectionUrl"
HOOK_SOURCE = Path(__file__).with_name("java") / "OwnConnectionUrl.java"

# The Hive settings that make every metastore call ask the hook.
HIVE_SETTINGS = {
    "spark.hadoop.hive.metastore.ds.connection.url.hook": HOOK_CLASS,
    "spark.hadoop.hive.hmshandler.force.reload.conf": "true",
}

# Stands for the lake's own folder in settings compared across lakes.
LAKE = "<lake>"

# Hudi's one Hive client per JVM (a Scala object's field).
HUDI_CLIENT_HOLDER = "org.apache.spark.sql.hive.HiveClientUtils$"
HUDI_CLIENT_FIELD = "client"
# Derby's answer to a shutdown of its engine, as asked.
DERBY_STOPPED = "XJ015"


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
    return {
        key: value.replace(str(lake), LAKE)
        for key, value in conf.items()
        if key.startswith(prefixes)
    }


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


def leave(session: Any | None, metastore_url: str, next_lake: Path) -> None:
    """Stop the session (None: it was stopped) and let go of its lake: its
    catalog database, Hudi's client of that catalog, and the lake's lock;
    Derby starts again at home in `next_lake`."""
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
    if session is not None:
        session.stop()
    field.set(holder, None)
    _close_catalog_connections(jvm)
    if metastore_url.startswith("jdbc:derby:"):
        _restart_derby(jvm, next_lake)
    lake_lock.release()


def _hudi_client_field(jvm: Any) -> tuple[Any, Any]:
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    holder_class = jvm.java.lang.Class.forName(HUDI_CLIENT_HOLDER, True, loader)
    field = holder_class.getDeclaredField(HUDI_CLIENT_FIELD)
    field.setAccessible(True)
    return holder_class.getField("MODULE$").get(None), field


def _close_catalog_connections(jvm: Any) -> None:
    """Close the metastore's connection pool (Hive's one persistence manager
    factory per JVM): left open, it reopens the lake's database after the
    database is shut down."""
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    store = jvm.java.lang.Class.forName(
        "org.apache.hadoop.hive.metastore.ObjectStore", True, loader
    )
    field = store.getDeclaredField("pmf")
    field.setAccessible(True)
    factory = field.get(None)
    if factory is None:
        return
    from py4j.protocol import Py4JError

    try:
        factory.close()
    except Py4JError as error:  # the database is shut down next all the same
        logger.debug(f"Hive's metastore connections not closed: {error}")


def _restart_derby(jvm: Any, lake: Path) -> None:
    """Shut Derby down, so that another process may open the lake's catalog
    database, and have it start again at home in the next lake.

    Its home matters beside the URL the session gives: Hudi's Hive sync opens
    the metastore with Hive's default URL (`metastore_db`, in Derby's home),
    which a Derby started in the first lake would keep resolving there."""
    from py4j.protocol import Py4JJavaError

    try:
        jvm.java.sql.DriverManager.getConnection("jdbc:derby:;shutdown=true")
    except Py4JJavaError as error:
        if _sql_state(error.java_exception) != DERBY_STOPPED:
            logger.debug(f"Derby not shut down: {error.java_exception}")
    jvm.java.lang.System.setProperty("derby.system.home", str(lake))
    # A Derby shut down takes connections again once its driver is loaded anew.
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    driver = jvm.java.lang.Class.forName("org.apache.derby.jdbc.EmbeddedDriver", True, loader)
    driver.newInstance()


def _sql_state(exception: Any) -> str | None:
    from py4j.protocol import Py4JError

    try:
        return str(exception.getSQLState())
    except Py4JError:  # not an SQLException
        return None
