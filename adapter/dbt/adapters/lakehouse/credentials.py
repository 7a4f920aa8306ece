"""Profile fields of `type: lakehouse`: dbt-spark's, plus the embedded
session's and Spark Connect's."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from dbt.adapters.spark.connections import SparkCredentials
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.hudi import concurrency
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from dbt.adapters.lakehouse.lake.metastore import METASTORE_URL, shares_catalog
from dbt.adapters.lakehouse.storage import locations as storage

# Runtime settings every connection gets, whatever the method. dbt-spark adds
# spark.sql.ansi.enabled=false itself.
RUNTIME_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    # Spark replaces ${...} in the text of every statement before parsing it,
    # inside string literals too: ${env:NAME} with an environment variable,
    # ${name} with a session setting. A config value rendered into SQL (a table
    # property, a comment) could then copy a secret into the catalog. Off, a
    # statement holds exactly what the adapter's quoting wrote.
    "spark.sql.variable.substitute": "false",
}


class LakehouseMethod(StrEnum):
    """dbt-spark's methods (equal to its own enum's members, as strings), and
    Spark Connect."""

    THRIFT = "thrift"
    HTTP = "http"
    ODBC = "odbc"
    SESSION = "session"
    CONNECT = "connect"


# Spark Connect's own default port.
CONNECT_PORT = 15002

# Overrides the profile's warm_start, both ways: 0/false/no/off or 1/true/yes/on.
WARM_START_ENV_VAR = "LAKEHOUSE_WARM_START"


def resolve_warm_start(profile: bool | None) -> bool:
    """warm_start as it applies: the environment variable, else the profile,
    else on for the `dbt` command line and off for a process that calls dbt
    in-process (dbtRunner: a notebook, an orchestrator, dbt's adapter tests).

    A server pays when the process ends with its command: the next command
    finds Spark running. A process that runs dbt in-process keeps Spark
    itself between calls, on one lake after another (session/lake_switch.py), where a
    server per project would cost a JVM start each."""
    setting = os.environ.get(WARM_START_ENV_VAR, "").strip().lower()
    if setting in ("0", "false", "no", "off"):
        return False
    if setting in ("1", "true", "yes", "on"):
        return True
    if setting:
        raise DbtRuntimeError(
            f"{WARM_START_ENV_VAR}={setting!r}: use 1 (warm start on) or 0 (off), or unset it."
        )
    return is_dbt_command_line() if profile is None else profile


def is_dbt_command_line() -> bool:
    """Whether this process is a `dbt` command (the console script, or
    `python -m dbt.cli.main`), rather than a program calling dbt."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name == "dbt.cli.main":
        return True
    return Path(sys.argv[0]).name in ("dbt", "dbt.exe") if sys.argv else False


@dataclass
class LakehouseCredentials(SparkCredentials):
    method: LakehouseMethod = None  # type: ignore[assignment]
    # Thrift: seconds between looks at a running statement's state. dbt-spark
    # waits 5 s, so each statement that is not done at the first look costs
    # up to 5 s more than it ran: a model issues 20 to 50 of them.
    poll_interval: float = 0.1  # type: ignore[assignment]
    # The embedded session needs no host; dbt-spark requires one, so default it.
    host: str | None = None
    # Where the embedded session keeps its Derby metastore and, unless
    # warehouse_dir says otherwise, its tables (<lake_dir>/warehouse).
    lake_dir: str = ".lake"
    # The embedded session's tables: a local folder or a Hadoop URI
    # (s3a://bucket/prefix, hdfs://, gs://, abfs://); see storage/locations.py.
    warehouse_dir: str | None = None
    # Path to the Hudi Spark bundle. When unset, LAKEHOUSE_HUDI_JAR, then the
    # per-user jar cache and ~/.m2, then a one-time download (see hudi_bundle).
    hudi_jar: str | None = None
    # Spark master of the embedded session.
    master: str = "local[*]"
    # Extra static settings for the embedded session (spark.driver.memory, ...).
    spark_conf: dict[str, str] = field(default_factory=dict)
    # Seconds a run waits for a lake another process is using (see lake_lock).
    lake_lock_timeout: float = 60
    # Several writers of one table at once, or one at a time (see concurrency):
    # single_writer, or optimistic with a lock provider. Unset: optimistic when
    # spark_conf points the catalog at a shared metastore, else single_writer.
    concurrency: str | None = None
    lock_provider: str = "filesystem"
    # method: connect, with use_ssl or a token (which implies TLS): the PEM
    # file of the certificate authority that signed the server's certificate
    # (a self-signed certificate is its own). Default: the system's roots.
    tls_ca_file: str | None = None
    # session: keep Spark running between dbt commands, in a local server per
    # lake (see warm_client). Unset: on for the `dbt` command line, off where
    # dbt is called in-process (resolve_warm_start); LAKEHOUSE_WARM_START
    # overrides the profile both ways.
    warm_start: bool | None = None
    # session with warm start: seconds the lake's server lives without a dbt process.
    warm_idle_timeout: float = 900
    # session, Spark in-process on a local master: each write's batch is held
    # in Spark's memory (spilled to the local disk) rather than written to a
    # scratch table on the lake and read back (see memory_staging).
    stage_in_memory: bool = True
    # session: where a lake keeps its catalog (lake/catalog.py): metastore
    # (Hive's, on a Derby database in the lake, or the one spark_conf names)
    # or folder (files in the lake's catalog folder). Unset: the lake's own
    # kind; a new lake's, LAKEHOUSE_LAKE_CATALOG, else metastore.
    lake_catalog: str | None = None
    # session: table formats its Spark loads besides those the project's
    # models are written in (formats/registry.py), for a process that runs several
    # projects on one session.
    table_formats: list[str] = field(default_factory=list)

    @classmethod
    def __pre_deserialize__(cls, data: Any) -> Any:
        data = super().__pre_deserialize__(data)
        if data.get("method") == LakehouseMethod.CONNECT:
            data.setdefault("port", CONNECT_PORT)
        return data

    def __post_init__(self) -> None:
        if self.method == LakehouseMethod.SESSION and not self.host:
            self.host = "embedded"
        super().__post_init__()
        self.spark_conf = {str(k): str(v) for k, v in self.spark_conf.items()}
        if self.warehouse_dir is not None:
            # As a Spark setting, the in-process session and the warm server
            # (whose fingerprint covers spark_conf) both get it.
            storage.check_warehouse_dir(self.warehouse_dir)
            self.spark_conf.setdefault(
                "spark.sql.warehouse.dir",
                storage.warehouse_location(self.lake_dir, self.warehouse_dir),
            )
        if self.method == LakehouseMethod.SESSION:
            self._resolve_lake_catalog()
            self.add_table_formats(self.table_formats, "the profile's table_formats")
            self.warm_start = resolve_warm_start(self.warm_start)
            if self.warm_idle_timeout <= 0:
                raise DbtRuntimeError(
                    f"warm_idle_timeout: {self.warm_idle_timeout:g} must be a number of "
                    "seconds above 0 (warm_start: false runs Spark in-process instead)."
                )
        try:
            self.concurrency = concurrency.resolve_mode(
                self.concurrency, shares_catalog(self.spark_conf)
            )
            writers = concurrency.hudi_settings(
                self.concurrency, self.lock_provider, self.server_side_parameters
            )
            concurrency.check_lock_storage(
                self.concurrency,
                self.lock_provider,
                self.spark_conf.get("spark.sql.warehouse.dir"),
            )
        except concurrency.ConcurrencyConfigError as exc:
            raise DbtRuntimeError(str(exc)) from exc
        for key, value in {**RUNTIME_DEFAULTS, **writers}.items():
            self.server_side_parameters.setdefault(key, value)

    def _resolve_lake_catalog(self) -> None:
        """lake_catalog, when the profile names it, checked and carried in
        spark_conf (the session and the warm server's fingerprint read it
        there); unset, the session follows the lake (lake_catalog.for_lake)."""
        if self.lake_catalog is None:
            return
        kind = lake_catalog.check_kind(self.lake_catalog, "lake_catalog")
        if kind == lake_catalog.FOLDER and shares_catalog(self.spark_conf):
            raise DbtRuntimeError(
                f"lake_catalog: {kind} keeps the lake's catalog in its folder, and spark_conf "
                f"names a shared metastore ({METASTORE_URL}): keep one. A shared metastore "
                f"is lake_catalog: {lake_catalog.METASTORE}."
            )
        self.lake_catalog = kind
        self.spark_conf[lake_catalog.CONF] = kind

    def add_table_formats(self, formats: Iterable[str], where: str) -> None:
        """Have the embedded session load these formats too: a Spark setting,
        so that the warm server's fingerprint covers it (formats/registry.py)."""
        started = self.spark_conf.get(table_formats.FORMATS_CONF)
        wanted = [*table_formats.decode(started), *table_formats.check_names(formats, where)]
        self.spark_conf[table_formats.FORMATS_CONF] = table_formats.encode(wanted)

    @property
    def type(self) -> str:
        return "lakehouse"

    # What `dbt debug` prints: the method's own fields. Never the fields that
    # can carry a secret: token, password, connection_string_suffix,
    # spark_conf, server_side_parameters.
    def _connection_keys(self) -> tuple[str, ...]:
        if self.method == LakehouseMethod.SESSION:
            return (
                "method",
                "schema",
                "lake_dir",
                "lake_catalog",
                "warehouse_dir",
                "master",
                "warm_start",
                "concurrency",
                "lock_provider",
            )
        if self.method == LakehouseMethod.CONNECT:
            return ("method", "host", "port", "use_ssl", "tls_ca_file", "schema", "concurrency")
        return ("method", "host", "port", "user", "use_ssl", "schema", "concurrency")
