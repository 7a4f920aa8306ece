"""The embedded Spark session (`method: session`), configured for Hudi by itself.

One Spark JVM serves the whole process: the first connection starts it with the
Hudi bundle, SQL extension, catalog and serializer; every later connection (and
every later in-process dbt invocation) reuses it. Each dbt connection gets its
own child session (`SparkSession.newSession()`): it shares the JVM, catalog and
data, but has its own SQL settings and temporary views, so a `SET hoodie.*`
issued for one model's write cannot leak into another thread's write.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark import session as spark_session
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from dbt.adapters.lakehouse.lake import lock as lake_lock
from dbt.adapters.lakehouse.lake.metastore import METASTORE_URL, shares_catalog
from dbt.adapters.lakehouse.session import (
    catalog_template,
    class_data,
    format_jars,
    lake_switch,
    local_fs,
)
from dbt.adapters.lakehouse.session import hadoop_conf as local_hadoop_conf
from dbt.adapters.lakehouse.session import local_dir as spark_local_dir
from dbt.adapters.lakehouse.storage import connector_jars
from dbt.adapters.lakehouse.storage import locations as storage
from dbt.adapters.lakehouse.storage import probe as store_probe

logger = AdapterLogger("Lakehouse")

HUDI_EXTENSION = "org.apache.spark.sql.hudi.HoodieSparkSessionExtension"
HUDI_CATALOG = "org.apache.spark.sql.hudi.catalog.HoodieCatalog"

LOG4J_CONFIG = Path(__file__).with_name("log4j2.properties")

_start_lock = threading.Lock()

# The driver JVM's flags (spark-submit reads them as it starts the JVM).
JAVA_OPTIONS = spark_local_dir.JAVA_OPTIONS


def hudi_session_conf(lake_dir: Path, jar: Path, master: str) -> dict[str, str]:
    """Static settings a Spark session needs to read and write Hudi tables locally."""
    return {
        "spark.master": master,
        "spark.app.name": "dbt-lakehouse",
        # Local mode runs everything in the driver: 1g (Spark's default) is tight
        # for Hudi's merges; override with spark_conf in the profile.
        "spark.driver.memory": "4g",
        "spark.jars": str(jar),
        "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
        "spark.kryo.registrator": "org.apache.spark.HoodieSparkKryoRegistrar",
        "spark.sql.extensions": HUDI_EXTENSION,
        "spark.sql.catalog.spark_catalog": HUDI_CATALOG,
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(lake_dir / "warehouse"),
        # An embedded Derby metastore inside the lake folder, not in the cwd.
        METASTORE_URL: (f"jdbc:derby:;databaseName={lake_dir / 'metastore_db'};create=true"),
        # The jol flags: Hudi sizes objects with jol, which would otherwise try to
        # attach an agent to this very JVM; when that self-attach misfires the
        # JVM prints a full thread dump to the console.
        JAVA_OPTIONS: " ".join(
            [
                f"-Dderby.system.home={lake_dir}",
                f"-Dlog4j2.configurationFile={LOG4J_CONFIG.as_uri()}",
                "-Djol.skipDynamicAttach=true",
                "-Djol.skipHotspotSAAttach=true",
            ]
        ),
        "spark.sql.session.timeZone": "UTC",
        # Local runs move small micro-batches: 200 shuffle partitions is all overhead.
        "spark.sql.shuffle.partitions": "4",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # What a long-running process keeps between batches, bounded small.
        # Spark keeps the file listing of every table a query reads in a cache
        # of up to 250 MB by default, with entries private to each query's file
        # index: a micro-batch loop (scratch tables, Hudi reads) adds thousands
        # of entries a batch that no later query uses, and the heap climbs
        # until the cache is full. 32 MiB still serves the repeated reads of one
        # relation within a query or a session.
        "spark.sql.hive.filesourcePartitionFileCacheSize": str(32 * 2**20),
        # The status store behind the (disabled) UI keeps the last 1,000 SQL
        # executions with their plans, and 1,000 jobs and stages: a batch runs
        # about that many, so the store holds a batch's worth of plans whose
        # size varies with the models. Nothing reads them (the profiler reads
        # the event log).
        "spark.sql.ui.retainedExecutions": "50",
        "spark.ui.retainedJobs": "100",
        "spark.ui.retainedStages": "100",
        # Spark renders every query's physical plan as text for the SQL
        # listeners, before it runs (and, with adaptive execution, again at
        # each re-plan), UI or not. The default "formatted" text costs about
        # 15% of a warm query's time on a small table here (a join of three
        # aggregates of a 20k-row Hudi table: 830 against 710 ms); "simple" is
        # the plan tree alone. Spark 3.5 has no mode that skips it.
        "spark.sql.ui.explainMode": "simple",
        **_loopback(master),
    }


def _loopback(master: str) -> dict[str, str]:
    """Bind the driver (its RPC and block manager ports) to loopback when the
    whole job runs in this JVM: nothing here is meant for the network. A
    cluster master needs a driver its executors can reach (set spark.driver.host
    in spark_conf)."""
    if not master.startswith("local"):
        return {}
    return {"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"}


# Settings spark-submit itself reads while it starts the JVM (heap, class path,
# packages); pyspark passes these on the JVM's command line. The local file
# system's class too: spark-submit opens the first file: path (to list the
# jars), and Hadoop caches that instance for the whole JVM.
LAUNCH_PREFIXES = (
    "spark.master",
    "spark.driver.",
    "spark.jars",
    "spark.submit.",
    "spark.files",
    "spark.archives",
    "spark.hadoop.fs.file.impl",
)


def _launch_gateway(conf: dict[str, str]) -> None:
    """Start the JVM with only the settings its launch needs.

    pyspark puts every setting it launches the JVM with on the JVM's command
    line, which every local user can read (`ps`, /proc/<pid>/cmdline); a
    spark_conf secret (spark.hadoop.fs.s3a.secret.key, ...) would be among
    them. The other settings reach the SparkContext through the gateway when
    the session is built, as they would for a session built in a notebook."""
    from pyspark import SparkConf, SparkContext

    launch = SparkConf(loadDefaults=False)
    for key, value in conf.items():
        if key.startswith(LAUNCH_PREFIXES):
            launch.set(key, value)
    SparkContext._ensure_initialized(conf=launch)


def _active_session() -> Any | None:
    from pyspark.sql import SparkSession

    if _started is not None and _started.session._sc._jsc is not None:
        # (after a move that kept the Spark context, pyspark's own lookup
        # may still answer with the last lake's session on some threads)
        return _started.session
    session = SparkSession.getActiveSession() or SparkSession._instantiatedSession
    if session is not None and session._sc._jsc is None:  # stopped
        return None
    return session


@dataclass(frozen=True)
class _Started:
    """The session this module started: its lake and warehouse, the catalog
    database it opened, and what its JVM was launched with (the lake's folder
    put aside)."""

    session: Any
    lake: Path
    location: str
    metastore_url: str
    launched_with: dict[str, str]
    # Whether the JVM can move the session to another lake (session/lake_switch.py).
    can_switch: bool
    # The settings and lake the running Spark context was started with (a
    # move to a lake that needs the same ones but for its folder keeps it).
    context_conf: dict[str, str]
    context_lake: Path


_started: _Started | None = None
# Statements running on the session this module started, counted so that it
# never leaves a lake under one (session/lake_switch.py).
_in_flight = 0
_in_flight_lock = threading.Lock()


@contextmanager
def running() -> Generator[None, None, None]:
    """Counts a statement of this process's embedded session while it runs."""
    global _in_flight
    with _in_flight_lock:
        _in_flight += 1
    try:
        yield
    finally:
        with _in_flight_lock:
            _in_flight -= 1


def _leave_for(lake: Path, location: str, launch: dict[str, str], conf: dict[str, str]) -> bool:
    """Move the running session off its lake, for `lake` and its settings
    `conf`; an error naming why when it cannot (session/lake_switch.py). True when
    the Spark context stays, for the next lake's session to run on."""
    assert _started is not None
    here = f"lake_dir {_started.lake} (warehouse {_started.location})"
    wanted = f"lake_dir {lake} (warehouse {location})"
    one_per_process = (
        "Run the commands of each lake in a process of their own (one `dbt` command per "
        "target), or give the profiles the same lake_dir and warehouse_dir."
    )
    session = _active_session()
    if _started.lake != lake and not _started.can_switch:
        raise DbtRuntimeError(
            f"This profile's embedded Spark session is for {wanted}, but this process's session "
            f"is for {here}, and it cannot move to another lake here (the debug log says why). "
            + one_per_process
        )
    changed = lake_switch.differences(_started.launched_with, launch)
    if changed:
        raise DbtRuntimeError(
            f"This profile's embedded Spark session is for {wanted}, with other JVM launch "
            f"settings than this process's session for {here}: {', '.join(changed)}. A JVM keeps "
            "the settings it was launched with; give the profiles the same ones. " + one_per_process
        )
    if _started.lake == lake:
        return False  # its session was stopped: a new one starts on the same lake
    keep_context = session is not None and lake_switch.same_context(
        _started.context_conf, _started.context_lake, conf, lake, LAUNCH_PREFIXES
    )
    with _in_flight_lock:
        if session is not None and _in_flight:
            raise DbtRuntimeError(
                f"This profile's embedded Spark session is for {wanted}, but this process's "
                f"session is running statements on {here}: it serves one lake at a time. Run "
                "the commands of the two lakes one after the other, or each in a process of "
                "its own."
            )
        logger.info(f"Moving this process's Spark session from lake {_started.lake} to {lake}.")
        lake_switch.leave(session, _started.metastore_url, lake, keep_context)
    return keep_context


def process_lake() -> Path | None:
    """The lake this process's embedded session is on, while it runs."""
    return _started.lake if _started is not None and _active_session() is not None else None


def can_take(lake_dir: str, hudi_jar: str | None, master: str, spark_conf: dict[str, str]) -> bool:
    """Whether root_session would give this profile a session in this process
    without refusing it: no JVM runs yet, or the one running is on this lake,
    or can move to it (launched with the same settings: session/lake_switch.py)."""
    if _started is None:
        return True
    lake = Path(lake_dir).resolve()
    if _started.lake == lake:
        return True
    if not _started.can_switch:
        return False
    jar = hudi_bundle.resolve(hudi_jar, notify=logger.info)
    formats = table_formats.decode(spark_conf.get(table_formats.FORMATS_CONF))
    location = _warehouse(lake, spark_conf)
    _, _, launch = _wanted(lake, location, jar, master, spark_conf, formats, moved=True)
    return not lake_switch.differences(_started.launched_with, launch)


def _warehouse(lake: Path, spark_conf: dict[str, str]) -> str:
    return spark_conf.get("spark.sql.warehouse.dir", str(lake / "warehouse"))


def _wanted(
    lake: Path,
    location: str,
    jar: Path,
    master: str,
    spark_conf: dict[str, str],
    formats: list[str],
    moved: bool,
) -> tuple[dict[str, str], bool, dict[str, str]]:
    """The session's settings for `lake` and whether its JVM can move (as
    _session_conf), and the JVM launch settings among them, the lake's folder
    put aside (to compare with the running JVM's)."""
    conf, can_switch = _session_conf(lake, location, jar, master, spark_conf, formats, moved)
    return conf, can_switch, lake_switch.launch_settings(conf, lake, LAUNCH_PREFIXES)


def root_session(
    lake_dir: str,
    hudi_jar: str | None,
    master: str,
    spark_conf: dict[str, str],
    lock_timeout: float = 60,
    records_class_data: bool = True,
) -> Any:
    """The process-wide Spark session, started with Hudi on first use, and
    moved to this profile's lake when it is on another one (session/lake_switch.py).
    `records_class_data`: whether, without a class-data archive, it records
    one to write at the end of its first dbt command (session/class_data.py); a
    process without dbt commands (the warm server) only maps one."""
    global _started, _class_data
    # Refuse a pyspark no Hudi bundle exists for here, with a readable error,
    # rather than as a class-loading stack trace from a JVM already started.
    hudi_bundle.installed_bundle()
    lake = Path(lake_dir).resolve()
    location = _warehouse(lake, spark_conf)
    formats = table_formats.decode(spark_conf.get(table_formats.FORMATS_CONF))
    with _start_lock:
        session = _active_session()
        if session is not None and (_started is None or _started.lake == lake):
            if _started is not None and _started.location != location:
                raise DbtRuntimeError(
                    f"This profile's embedded Spark session is for lake_dir {lake} with warehouse "
                    f"{location}, but this process's session on that lake uses the warehouse "
                    f"{_started.location}. Give the profiles the same warehouse_dir."
                )
            started = table_formats.started_with(
                session.conf.get(table_formats.FORMATS_CONF, None),
                session.conf.get("spark.sql.extensions", None),
            )
            table_formats.check_started_with(started, formats)
            check_hudi_enabled(session)
            return session
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        # Found on this machine, or downloaded once into the per-user cache;
        # see hudi_bundle for the order.
        jar = hudi_bundle.resolve(hudi_jar, notify=logger.info)
        # Bind the driver to loopback: nothing here is meant for the network.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        lake.mkdir(parents=True, exist_ok=True)
        # (after a move: every later session of this JVM)
        moved = _started is not None
        conf, can_switch, launch = _wanted(lake, location, jar, master, spark_conf, formats, moved)
        # Where the lake keeps its catalog, as _session_conf decided it.
        catalog_folder = None
        if conf[lake_catalog.CONF] == lake_catalog.FOLDER:
            catalog_folder = lake / lake_catalog.FOLDER_NAME
        keep_context = False
        if _started is not None:
            # This JVM was launched for another lake (or its session stopped).
            keep_context = _leave_for(lake, location, launch, conf)
        # Before the session: its Derby metastore admits one process per lake.
        # A shared catalog (a metastore database of its own) admits several
        # Spark applications at once; Hudi's concurrency control keeps their
        # writes apart (see formats/hudi/concurrency.py).
        if not shares_catalog(spark_conf):
            lake_lock.acquire(lake, lock_timeout, notify=logger.info)
        archive = None
        if _started is None:
            class_path = conf.get("spark.driver.extraClassPath", "").split(os.pathsep)
            jars = conf["spark.jars"].split(",")
            archive = class_data.for_session(
                maven.user_cache_dir(), [entry for entry in class_path + jars if entry]
            )
            options = archive.jvm_options(records_class_data) if archive is not None else []
            if options:
                conf[JAVA_OPTIONS] = " ".join([conf[JAVA_OPTIONS], *options])
            _launch_gateway(conf)
        if catalog_folder is None:
            # A new lake's catalog database starts as a copy of an empty one.
            catalog_template.seed(
                conf[METASTORE_URL],
                maven.user_cache_root(),
                SparkContext._gateway,
                logger.debug,
            )
            if can_switch:
                lake_switch.use_catalog(conf[METASTORE_URL])
        if keep_context:
            session = lake_switch.session_on_context(conf, catalog_folder)
        else:
            builder = SparkSession.builder
            for key, value in conf.items():
                builder = builder.config(key, value)
            logger.debug(f"Starting embedded Spark ({master}), lake {lake}, Hudi bundle {jar}")
            if catalog_folder is None:
                builder = builder.enableHiveSupport()
            session = builder.getOrCreate()
            session.sparkContext.setLogLevel("ERROR")
            if catalog_folder is not None:
                # The builder's session lends its context and extensions to
                # one whose catalog is the lake's folder.
                lake_switch.stop_status_listener(session)
                session = lake_switch.session_on_context(conf, catalog_folder)
        try:
            store_probe.check_warehouse_reachable(session, location)
        except DbtRuntimeError:
            session.stop()  # the next connection starts over, and probes again
            raise
        if _started is None:
            _class_data = archive if archive is not None and archive.training else None
            launched_with = launch
        else:
            launched_with = _started.launched_with
        context_conf, context_lake = conf, lake
        if keep_context and _started is not None:
            context_conf, context_lake = _started.context_conf, _started.context_lake
        _started = _Started(
            session,
            lake,
            location,
            conf[METASTORE_URL] if catalog_folder is None else "",
            launched_with,
            can_switch,
            context_conf,
            context_lake,
        )
        check_hudi_enabled(session)
        return session


def _session_conf(
    lake: Path,
    location: str,
    jar: Path,
    master: str,
    spark_conf: dict[str, str],
    formats: list[str],
    moved: bool,
) -> tuple[dict[str, str], bool]:
    """Every setting of the session for `lake`, and whether its JVM can move
    the session to another lake later (session/lake_switch.py); `moved`: whether the
    JVM has had a session before this one."""
    conf = hudi_session_conf(lake, jar, master)
    # On the class path whatever this lake's kind: a later lake may be the other.
    folder_catalog_jar = format_jars.folder_catalog_jar(maven.user_cache_dir(), logger.debug)
    # Decided once, here (the lake's own kind, else the profile's or the default).
    conf[lake_catalog.CONF] = lake_catalog.for_lake(
        lake, spark_conf, folder_built=folder_catalog_jar is not None
    )
    if conf[lake_catalog.CONF] == lake_catalog.FOLDER:
        lake_catalog.require(folder_catalog_jar, lake)
        # Spark's own catalog in memory, written through to the lake's folder.
        conf["spark.sql.catalogImplementation"] = "in-memory"
        # Without Hive, a CREATE TABLE that names no format makes a table of
        # Spark's default data source (parquet), not a Hive text table.
        conf["spark.sql.legacy.createHiveTableByDefault"] = "false"
    # Hadoop's local file system without a child process per file created.
    file_system = local_fs.session_conf(master, maven.user_cache_dir(), logger.debug)
    conf.update(file_system)
    # The metastore hook that lets the JVM serve another lake's session
    # later: on the class path from the start, asked from the first move on.
    hook = lake_switch.hook_jar(maven.user_cache_dir(), logger.debug)
    if hook is not None and moved:
        conf.update(lake_switch.HIVE_SETTINGS)
    conf.update(storage.session_defaults(location))
    # The other table formats the project uses: their catalogs and
    # extensions beside Hudi's (table_formats says which and why).
    conf.update(table_formats.session_conf(formats, location, master))
    conf[table_formats.FORMATS_CONF] = ",".join(formats)
    extensions = [HUDI_EXTENSION, *table_formats.extensions(formats)]
    conf["spark.sql.extensions"] = ",".join(extensions)
    if "spark.local.dir" not in spark_conf:
        # Not /tmp, where a killed run's copies of the jars stayed.
        conf.update(spark_local_dir.session_conf(lake, conf[JAVA_OPTIONS]))
    own_java_options = conf[JAVA_OPTIONS]
    conf.update(spark_conf)
    if spark_conf.get(JAVA_OPTIONS):
        # The profile's JVM flags after the session's own, not instead
        # of them: without its Derby home and logging settings the
        # metastore does not start.
        conf[JAVA_OPTIONS] = f"{own_java_options} {spark_conf[JAVA_OPTIONS]}"
    # The Hudi bundle, the warehouse's file-system connector (s3a://),
    # then the profile's own jars.
    jars = [str(jar), *map(str, format_jars.fetch(formats, logger.info, jar))]
    jars += map(
        str,
        connector_jars.connector_jars(location, spark_conf, logger.info),
    )
    jars += [spark_conf["spark.jars"]] if spark_conf.get("spark.jars") else []
    conf["spark.jars"] = ",".join(jars)
    # The driver's class path: YARN's defaults left out (a local
    # master), the local file system's class, the metastore hook, then the
    # profile's.
    class_path = local_hadoop_conf.class_path(master, maven.user_cache_dir())
    class_path += [file_system["spark.driver.extraClassPath"]] if file_system else []
    class_path += [str(hook)] if hook is not None else []
    class_path += [str(folder_catalog_jar)] if folder_catalog_jar is not None else []
    if spark_conf.get("spark.driver.extraClassPath"):
        class_path.append(spark_conf["spark.driver.extraClassPath"])
    if class_path:
        conf["spark.driver.extraClassPath"] = os.pathsep.join(class_path)
    return conf, hook is not None


# The class-data archive this process's session is recording, until written.
_class_data: class_data.ClassData | None = None


def write_class_data() -> None:
    """Has the session's JVM write the class-data archive it recorded, once,
    at the end of the process's first dbt command (session/class_data.py)."""
    global _class_data
    archive, _class_data = _class_data, None
    if archive is None:
        return  # (every command of a process that records nothing)
    session = _active_session()
    if session is None:  # stopped before its first command ended
        archive.give_up()
        return
    jvm = session._jvm
    pid = jvm.java.lang.ProcessHandle.current().pid()
    archive.write(pid, jvm.java.lang.System.getProperty("java.class.path"), logger.info)


def check_hudi_enabled(session: Any, what: str = "An active Spark session") -> None:
    extensions = session.conf.get("spark.sql.extensions", "") or ""
    if HUDI_EXTENSION not in extensions:
        raise DbtRuntimeError(
            f"{what} was started without the Hudi extension "
            f"(spark.sql.extensions={extensions!r}). Stop it, or start it with "
            f"spark.sql.extensions={HUDI_EXTENSION} and "
            f"spark.sql.catalog.spark_catalog={HUDI_CATALOG}."
        )


class SessionCursor(spark_session.Cursor):
    """dbt-spark's session cursor, on one connection's own Spark session: a
    child session of the embedded one, or a Spark Connect session.

    dbt-spark's runs every statement on the process's root session
    (`SparkSession.builder.getOrCreate()`), where a `SET hoodie.*` for one
    model's write would reach every other thread's writes. The rest (the
    description, fetching, closing) is dbt-spark's."""

    def __init__(self, spark: Any) -> None:
        super().__init__()
        self._spark = spark

    def execute(self, sql: str, *parameters: Any) -> None:
        from pyspark.errors import AnalysisException

        if parameters:
            sql = sql % parameters
        self._rows = None  # a new statement's rows, not the last one's
        try:
            self._df = self._spark.sql(sql)
        except AnalysisException as exc:
            raise DbtRuntimeError(str(exc)) from exc


class EmbeddedCursor(SessionCursor):
    """A cursor on a child session of the embedded one: its statements are
    counted while they run (the session never leaves a lake under one), and
    one whose session has since moved to another lake says so."""

    def __init__(self, spark: Any, started: _Started | None) -> None:
        super().__init__(spark)
        self._started = started

    def execute(self, sql: str, *parameters: Any) -> None:
        self._check_live()
        with running():
            super().execute(sql, *parameters)

    def fetchall(self) -> Any:
        with running():
            return super().fetchall()

    def fetchone(self) -> Any:
        with running():
            return super().fetchone()

    def _check_live(self) -> None:
        if self._spark.sparkContext._jsc is None or self._started is not _started:
            raise DbtRuntimeError(
                "This connection's embedded Spark session is no longer this process's: the "
                "process moved its session to another lake (or it was stopped). Run the command "
                "again: its connections open on the running session."
            )


class EmbeddedConnection(spark_session.Connection):
    """One child Spark session per dbt connection, with the runtime settings applied."""

    def __init__(self, root: Any, runtime_conf: dict[str, str]) -> None:
        super().__init__(server_side_parameters=runtime_conf)
        self.session = root.newSession()
        # The session it is a child of (a cursor on it refuses statements
        # once the process's session has moved to another lake).
        self.started = _started
        for key, value in runtime_conf.items():
            self.session.conf.set(key, value)

    def cursor(self) -> EmbeddedCursor:
        return EmbeddedCursor(self.session, self.started)
