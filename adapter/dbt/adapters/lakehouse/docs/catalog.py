"""dbt docs' catalog: the project's own relations only, with lake stats.

dbt-spark lists every table of each schema (`show table extended ... like
'*'`, which loads each table's metadata, a Hudi table's from its timeline)
and parses the listing, so its time grows with tables the project never
made. Here a schema costs one `show tables` (names
only, from the metastore), and only the project's relations that exist are
described. Each lake table also gets its lake stats, as its format reads them
(TableFormat.catalog_stats: a Hudi table's hoodie.properties, timeline and
files, an Iceberg table's snapshots, a Delta table's versions), and each
upstream read by change reads gets, per consumer, the last commit that
consumer has read.

Hudi's `_hoodie_*` meta columns are not listed among a table's columns: one
stat names them, apart from the model's own columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats import change_range, registry
from dbt.adapters.lakehouse.formats.table_format import CatalogHistory
from dbt.adapters.lakehouse.lake.metadata import LakeMetadata, parse_describe

if TYPE_CHECKING:
    import agate

# Spark's file sources, read by path (`binaryFile`.`/landing/feed`): a
# relation in such a "schema" is a folder or file, not a catalog table.
FILE_FORMATS = frozenset({"binaryfile", "json", "parquet", "csv", "text", "orc", "avro"})
# The macros whose reads record the consumed position in the model's commits.
CHANGE_READ_MACROS = ("lake_changes(", "lake_changed_keys(", "lake_signed_changes(")
META_PREFIX = "_hoodie_"
# Stats whose values are counts (dbt docs formats `bytes` and `rows` as such).
NUMERIC_STATS = frozenset(
    f"stats:{stat}:value"
    for stat in (
        "bytes",
        "rows",
        "commits",
        "pending_compactions",
        "file_groups",
        "files",
        "delete_files",
    )
)


@dataclass(frozen=True)
class Wanted:
    """A relation the catalog describes; `change_reader` when its model's SQL
    reads upstreams by change reads."""

    schema: str
    name: str
    change_reader: bool = False
    # The Spark catalog an Iceberg model names in `database`; None: the session's.
    database: str | None = None

    @property
    def table(self) -> str:
        catalog = f"{self.database}." if self.database else ""
        return f"{catalog}{self.schema}.{self.name}"

    @property
    def namespace(self) -> str:
        """schema, or catalog.schema (a file source's name may hold dots)."""
        return f"{self.database}.{self.schema}" if self.database else self.schema


@dataclass
class Described:
    """One relation's catalog rows and what the consumer pass needs of it."""

    rows: list[dict[str, Any]]
    # The table's history, as its format shows a consumer's lag on it.
    history: CatalogHistory | None = None
    # upstream -> the positions this table recorded of it (in a write, in a
    # table property), the latest by the upstream's own order.
    consumed: dict[str, list[str]] = field(default_factory=dict)

    def lag(self, positions: list[str]) -> str:
        """Where a consumer that recorded `positions` of this table stands."""
        if self.history is None:
            return "not a table whose history the catalog reads"
        return self.history.lag(positions)


class Stats:
    """dbt's catalog stats of one table: `stats:<id>:label|value|description|include`."""

    def __init__(self) -> None:
        self.items: dict[str, Any] = {}

    def add(self, stat_id: str, label: str, value: Any, description: str) -> None:
        prefix = f"stats:{stat_id}:"
        self.items |= {
            prefix + "label": label,
            prefix + "value": value,
            prefix + "description": description,
            prefix + "include": True,
        }


def wanted_relations(relation_configs: Iterable[Any], relation_of: Any) -> list[Wanted]:
    """The relations of the project's nodes and sources (not ephemeral ones)."""
    wanted: dict[tuple[str, str, str], Wanted] = {}
    for node in relation_configs:
        relation = relation_of(node)
        if not relation.schema or not relation.identifier:
            continue
        code = getattr(node, "raw_code", "") or ""
        reader = any(macro in code for macro in CHANGE_READ_MACROS)
        database = relation.database or None
        key = (str(database).lower(), relation.schema.lower(), relation.identifier.lower())
        wanted[key] = Wanted(relation.schema, relation.identifier, reader, database)
    return list(wanted.values())


def by_schema(wanted: Iterable[Wanted]) -> dict[str, list[Wanted]]:
    """The relations by namespace: schema, or catalog.schema."""
    grouped: dict[str, list[Wanted]] = {}
    for relation in wanted:
        grouped.setdefault(relation.namespace, []).append(relation)
    return grouped


class CatalogReader:
    """Describes relations, asking through `metadata`."""

    def __init__(self, metadata: LakeMetadata) -> None:
        self._metadata = metadata
        self._ask = metadata.ask

    def schema(self, schema: str, relations: list[Wanted]) -> list[tuple[Wanted, Described]]:
        """The relations of one schema that exist, each described."""
        if schema.lower() in FILE_FORMATS:
            files = [(r, self._file_source(r)) for r in relations]
            return [(r, described) for r, described in files if described is not None]
        existing = self._table_names(schema)
        return [(r, self._table(r)) for r in relations if r.name.lower() in existing]

    # --- catalog tables --------------------------------------------------------

    def _table_names(self, schema: str) -> set[str]:
        # A namespace of another catalog (catalog.schema) lists its tables alone.
        statement = "show_catalog_tables" if "." in schema else "show_tables"
        try:
            rows = self._ask(statement, schema=schema)
        except DbtRuntimeError as exc:
            if "SCHEMA_NOT_FOUND" in str(exc) or "NoSuchNamespaceException" in str(exc):
                return set()  # nothing built there yet
            raise
        return {str(row[1]).lower() for row in rows}

    def _table(self, wanted: Wanted) -> Described:
        described_table = self._metadata.describe(wanted.table)
        columns, details = described_table.columns, described_table.details
        table_type = "view" if details.get("Type") == "VIEW" else "table"
        stats = Stats()
        described = Described(rows=[])
        meta = [name for name, _, _ in columns if name.startswith(META_PREFIX)]
        own = [column for column in columns if not column[0].startswith(META_PREFIX)]
        if meta:
            stats.add(
                "hudi_meta_columns",
                "Hudi meta columns",
                ", ".join(meta),
                "Columns Hudi adds to every record; not listed among the model's columns.",
            )
        fmt = registry.of_provider(details.get("Provider", ""))
        if fmt is not None and table_type == "table":
            try:
                location = details.get("Location", "")
                described.history = fmt.catalog_stats(
                    self._metadata, wanted.table, location, stats.add
                )
            except DbtRuntimeError as exc:
                # The columns are still worth showing; the reason goes in the stats.
                reason = str(exc).strip().splitlines()[-1].strip()
                stats.add("lake_stats_error", "Lake stats", f"unavailable: {reason}", "")
            if wanted.change_reader and described.history is not None:
                described.consumed = self._consumed(wanted.table, described.history)
        described.rows = catalog_rows(wanted, table_type, details, own, stats)
        return described

    def _consumed(self, table: str, history: CatalogHistory) -> dict[str, list[str]]:
        """upstream -> the positions this table's reads last consumed: from
        its latest write that recorded positions (its format's record), and
        a later run that read and wrote nothing (a table property)."""
        consumed = {
            key[len(change_range.POSITION_PREFIX) :]: [value]
            for key, value in history.latest_record().items()
            if key.startswith(change_range.POSITION_PREFIX)
        }
        for key, value in self._metadata.table_properties(table).items():
            if key.startswith(change_range.SKIPPED_PREFIX):
                consumed.setdefault(key[len(change_range.SKIPPED_PREFIX) :], []).append(value)
        return consumed

    # --- file sources ----------------------------------------------------------

    def _file_source(self, wanted: Wanted) -> Described | None:
        """None when nothing has landed there yet (as a table not built yet)."""
        relation = f"{wanted.schema}.`{wanted.name}`"
        try:
            described = self._ask("describe_query", relation=relation)
        except DbtRuntimeError as exc:
            if "PATH_NOT_FOUND" in str(exc):
                return None
            raise
        columns = parse_describe(described).columns
        stats = Stats()
        if wanted.schema.lower() == "binaryfile":
            # binaryFile opens no file for these columns.
            files, size, newest = self._ask("binary_files_stats", relation=relation)[0]
            stats.add(
                "files",
                "Files",
                int(files),
                "Files in the folder (names starting with . or _ are not counted).",
            )
            stats.add("bytes", "Size on disk", int(size), "Bytes of those files.")
            stats.add(
                "latest_landing",
                "Latest file landed",
                str(newest),
                "The newest file's modification time.",
            )
        details = {"Type": "EXTERNAL", "Comment": ""}
        return Described(rows=catalog_rows(wanted, "external", details, columns, stats))


def add_consumer_stats(described: Mapping[str, Described]) -> None:
    """On each upstream's rows, per consumer, the last commit it read and how
    many completed writes it is behind."""
    for consumer, facts in described.items():
        for upstream, positions in facts.consumed.items():
            target = described.get(upstream.lower())
            if target is None:
                continue
            value = target.lag(positions)
            name = consumer.split(".")[-1]
            stat = Stats()
            stat.add(
                f"read_by_{name}",
                f"Read by {name}",
                value,
                f"The last commit (snapshot) of this table that {consumer} has read by change "
                "reads (its recorded position), and how many completed writes came after it.",
            )
            for row in target.rows:
                row.update(stat.items)


def catalog_rows(
    wanted: Wanted,
    table_type: str,
    details: Mapping[str, str],
    columns: list[tuple[str, str, str]],
    stats: Stats,
) -> list[dict[str, Any]]:
    return [
        {
            "table_database": wanted.database,
            "table_schema": wanted.schema,
            "table_name": wanted.name,
            "table_type": table_type,
            "table_comment": details.get("Comment") or None,
            "table_owner": details.get("Owner") or None,
            "column_name": name,
            "column_index": index,
            "column_type": data_type,
            "column_comment": comment or None,
            **stats.items,
        }
        for index, (name, data_type, comment) in enumerate(columns)
    ]


def as_table(rows: list[dict[str, Any]]) -> agate.Table:
    """The rows as dbt's catalog table. Stats values that are text stay text
    (an instant's digits would otherwise become a number)."""
    import agate
    from dbt_common.clients.agate_helper import build_type_tester

    if not rows:
        return agate.Table([])
    names: list[str] = []
    for row in rows:
        names += [name for name in row if name not in names]
    text = [
        name
        for name in names
        if name.startswith("stats:") and name.endswith(":value") and name not in NUMERIC_STATS
    ]
    tester = build_type_tester(text + ["column_name", "column_type", "table_name"])
    return agate.Table([[row.get(n) for n in names] for row in rows], names, column_types=tester)
