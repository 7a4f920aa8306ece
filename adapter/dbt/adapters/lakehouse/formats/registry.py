"""The table formats a session can hold: each registered under its
`file_format` name, and what a session loads for those it holds.

Shared code gets a format here (get, of_provider) and asks it
(formats/table_format.py); this module and the formats' own packages are the
only places that name one. The package registers the three it holds
(formats/__init__.py), so a format's own modules may use the shared ones
(config_support.py, merge_table.py) that look formats up here.

Which catalog holds which format, and why: every model's table is named
`schema.table` in the session catalog (`spark_catalog`), as dbt-spark projects,
Hudi's docs and dbt's own adapter tests expect, whatever its format.
- Hudi's tables are the session catalog's (Hudi's HoodieCatalog over the Hive
  metastore). Hudi needs its catalog to be the session catalog, and only one
  catalog can be.
- A session with Delta or Iceberg gets one session catalog that chains them
  (java/LakeSessionCatalog.java: Delta's catalog in front of Hudi's in front of
  Spark's; formats/delta/format.py and formats/iceberg/format.py say why each).

A session loads a format's jar (session/format_jars.py) and SQL extension only when the project has a
model of that format, or the profile's `table_formats` lists it: the adapter
writes the set into the session's settings under FORMATS_CONF before the first
connection opens (impl.py), which is also how a running session (the
process's, or the lake's warm server, whose fingerprint covers spark_conf)
tells what it was started with.
"""

from __future__ import annotations

from collections.abc import Iterable

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats.table_format import TableFormat

_REGISTERED: dict[str, TableFormat] = {}
# The formats a model may name in file_format, in the order registered; the
# first is the default.
FORMATS: list[str] = []
DEFAULT_FORMAT = "hudi"
# The entry point group of formats from other packages (formats/__init__.py).
ENTRY_POINT_GROUP = "dbt_lakehouse.table_formats"
# The Spark setting that lists the formats a session was started with.
FORMATS_CONF = "spark.lakehouse.tableFormats"
# The session catalog of a session holding a format that needs it (session/format_jars.py builds it).
LAKE_SESSION_CATALOG = "lakehouse.catalog.LakeSessionCatalog"
# The format of a table kept in a catalog of its own (catalog.schema.table):
# Iceberg's tables, in the catalog a model's `database` names.
OWN_CATALOG_FORMAT = "iceberg"
# The order of the SQL extensions in spark.sql.extensions: Delta's before
# Iceberg's. Iceberg's row-lineage rule for UPDATE (1.10 to 1.12, Spark 3.5)
# fails on any table not Iceberg's ("scala.MatchError: DeltaTableV2", as a
# dbt snapshot test's UPDATE of a Delta table met it); with Delta's rules
# first, an UPDATE of a Delta table is Delta's before Iceberg's rule sees it.
EXTENSION_ORDER = ("delta", "iceberg")


def register(fmt: TableFormat) -> None:
    """Make `fmt` a format models may name (once per name)."""
    if fmt.name in _REGISTERED and _REGISTERED[fmt.name] is not fmt:
        raise ValueError(f"a table format named {fmt.name!r} is registered already")
    if fmt.name not in _REGISTERED:
        _REGISTERED[fmt.name] = fmt
        FORMATS.append(fmt.name)


def get(name: str) -> TableFormat:
    """The registered format named `name` (check_names first for a user's)."""
    return _REGISTERED[name.lower()]


def default() -> TableFormat:
    return _REGISTERED[DEFAULT_FORMAT]


def of_read(upstream_format: str) -> TableFormat:
    """The format that planned a change read (ChangeRead.upstream_format; '': the default)."""
    return get(upstream_format or DEFAULT_FORMAT)


def with_change_reads() -> list[TableFormat]:
    """The formats whose tables change reads read: those that keep a history
    for them (TableFormat.change_history)."""
    return [
        get(name)
        for name in FORMATS
        if type(get(name)).change_history is not TableFormat.change_history
    ]


def of_provider(provider: str) -> TableFormat | None:
    """The format of a table whose catalog names `provider`; None for one
    no registered format writes (parquet, a view)."""
    return _REGISTERED.get(provider.lower())


def readers_table() -> str:
    """The docs' table of the readers outside Spark that read each format's
    tables (adapter/README.md, checked by a unit test)."""
    lines = ["| format | reader | reads |", "|---|---|---|"]
    for name in FORMATS:
        for reader, what in get(name).readers.items():
            lines.append(f"| `{name}` | {reader} | {what} |")
    return "\n".join(lines)


def check_names(formats: Iterable[str], where: str) -> list[str]:
    """The formats, each known, in FORMATS order; an error naming `where` otherwise."""
    wanted = {str(f).strip().lower() for f in formats if str(f).strip()}
    unknown = sorted(wanted - set(FORMATS))
    if unknown:
        raise DbtRuntimeError(
            f"{where} names the table format(s) {', '.join(unknown)}; dbt-lakehouse "
            f"writes {', '.join(FORMATS)}."
        )
    return [f for f in FORMATS if f in wanted or f == DEFAULT_FORMAT]


def of_nodes(nodes: Iterable[object]) -> set[str]:
    """The formats the models, seeds and snapshots of a manifest are written in
    (unknown names are left for the model's own error)."""
    found: set[str] = set()
    for node in nodes:
        config = getattr(node, "config", None)
        fmt = config.get("file_format") if config is not None else None
        if isinstance(fmt, str) and fmt.lower() in FORMATS:
            found.add(fmt.lower())
    return found


def encode(formats: Iterable[str]) -> str:
    return ",".join(check_names(formats, "table_formats"))


def decode(value: str | None) -> list[str]:
    """The formats a FORMATS_CONF value lists (Hudi alone when unset)."""
    return check_names((value or "").split(","), FORMATS_CONF)


def in_lake_session_catalog(formats: Iterable[str]) -> list[TableFormat]:
    """Those of the formats whose tables the session catalog of the formats
    holds (java/LakeSessionCatalog.java): a session with any needs it."""
    return [get(f) for f in formats if get(f).in_lake_session_catalog]


def session_conf(formats: Iterable[str], warehouse: str, master: str = "local") -> dict[str, str]:
    """The catalogs and settings of the formats, for a session whose
    warehouse is at `warehouse`, on `master`."""
    conf: dict[str, str] = {}
    if in_lake_session_catalog(formats):
        conf["spark.sql.catalog.spark_catalog"] = LAKE_SESSION_CATALOG
    for fmt in (get(f) for f in formats):
        conf.update(fmt.session_conf(warehouse, master))
    return conf


def extensions(formats: Iterable[str]) -> list[str]:
    """The formats' SQL extensions, in the order Spark must apply them."""
    rank = {name: i for i, name in enumerate(EXTENSION_ORDER)}
    held = sorted((get(f) for f in formats), key=lambda f: rank.get(f.name, len(rank)))
    return [f.sql_extension for f in held if f.sql_extension]


def started_with(formats_conf: str | None, extensions: str | None) -> list[str]:
    """The formats a running session holds: its FORMATS_CONF, or for a session
    the adapter did not start, those whose SQL extension it has."""
    if formats_conf:
        return decode(formats_conf)
    loaded = extensions or ""
    return [f for f in FORMATS if f == DEFAULT_FORMAT or _extension_in(get(f), loaded)]


def _extension_in(fmt: TableFormat, loaded: str) -> bool:
    return fmt.sql_extension is not None and fmt.sql_extension in loaded


def check_started_with(started: list[str], wanted: Iterable[str]) -> None:
    """A running session serves the wanted formats only if it was started with
    them: a JVM cannot load a format's jar later."""
    missing = [f for f in wanted if f not in started]
    if missing:
        raise DbtRuntimeError(
            f"This process's Spark session was started without {', '.join(missing)} "
            f"(it holds {', '.join(started)}), which this project's models need: a "
            "running JVM cannot load a table format's jar. Run dbt in a new process, or list "
            "every format the process will use in the profile's table_formats "
            f"(e.g. table_formats: [{', '.join(FORMATS)}])."
        )


def check_served(served: list[str], fmt: str, method: str) -> None:
    """A Thrift or Connect server serves a format only if it was started with
    its jar, extension and catalog."""
    if fmt in served:
        return
    conf = session_conf([fmt], "<warehouse>")
    settings = ", ".join(f"{key}={value}" for key, value in conf.items())
    raise DbtRuntimeError(
        f"The Spark {method} server of this target holds {', '.join(served)}, not {fmt}, "
        f"which this project's models need. Start it with {fmt}: "
        f"`python -m adlake.servers.spark_server start {method} --table-formats "
        f"{','.join([*served, fmt])}` (this repository's servers), or give it "
        f"{get(fmt).server_jars or fmt} on its driver class path, its SQL extension "
        f"({', '.join(extensions([fmt]))}) and {settings}."
    )
