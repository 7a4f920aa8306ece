"""dbt docs' catalog: the project's own relations only, with lake stats.

dbt-spark lists every table of each schema (`show table extended ... like
'*'`, which loads each table's metadata, a Hudi table's from its timeline)
and parses the listing, so its time grows with tables the project never
made. Here a schema costs one `show tables` (names
only, from the metastore), and only the project's relations that exist are
described. Each Hudi table also gets its lake stats (what its
hoodie.properties, timeline and files say), each Iceberg table its snapshots'
(how many, and the current one's files, deletes, size and rows), and each
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

from dbt.adapters.lakehouse.formats import change_range
from dbt.adapters.lakehouse.formats.delta.history import History
from dbt.adapters.lakehouse.formats.iceberg import format as iceberg_format
from dbt.adapters.lakehouse.formats.iceberg.history import Ancestry
from dbt.adapters.lakehouse.lake.metadata import LakeMetadata, parse_describe

if TYPE_CHECKING:
    import agate

# Spark's file sources, read by path (`binaryFile`.`/landing/feed`): a
# relation in such a "schema" is a folder or file, not a catalog table.
FILE_FORMATS = frozenset({"binaryfile", "json", "parquet", "csv", "text", "orc", "avro"})
# The macros whose reads record the consumed position in the model's commits.
CHANGE_READ_MACROS = ("lake_changes(", "lake_changed_keys(", "lake_signed_changes(")
# Writes and replacements on a Hudi timeline (not cleans, rollbacks, ...).
WRITE_ACTIONS = frozenset({"commit", "deltacommit", "replacecommit"})
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
    # Completion times of the table's completed writes (Hudi tables).
    completions: list[str] = field(default_factory=list)
    # An Iceberg table's current snapshot and its ancestors.
    ancestry: Ancestry | None = None
    # A Delta table's versions.
    history: History | None = None
    # upstream -> the positions this table recorded of it (in a write, in a
    # table property), the latest by the upstream's own order.
    consumed: dict[str, list[str]] = field(default_factory=dict)

    def lag(self, positions: list[str]) -> str:
        """Where a consumer that recorded `positions` of this table stands."""
        if self.ancestry is not None:
            position = self.ancestry.later(*positions) or ""
            behind = self.ancestry.writes_after(position)
            if behind is None:
                return (
                    f"snapshot {position}, no longer an ancestor of the current one "
                    "(its next read is whole)"
                )
            return f"up to snapshot {position}" + (
                ", up to date" if behind == 0 else f", {behind} snapshot(s) behind"
            )
        if self.history is not None:
            version = History.later(*positions) or "-1"
            behind = len(History.data_versions(self.history.after(version)))
            return f"up to version {version}" + (
                ", up to date" if behind == 0 else f", {behind} version(s) behind"
            )
        position = change_range.latest_position(*positions) or ""
        behind = sum(1 for completed in self.completions if completed > position)
        return f"up to the commit completed {instant_time(position)}" + (
            ", up to date" if behind == 0 else f", {behind} commit(s) behind"
        )


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
        if details.get("Provider", "").lower() == "hudi" and table_type == "table":
            try:
                self._lake_stats(wanted, details.get("Location", ""), stats, described)
            except DbtRuntimeError as exc:
                # The columns are still worth showing; the reason goes in the stats.
                reason = str(exc).strip().splitlines()[-1].strip()
                stats.add("lake_stats_error", "Lake stats", f"unavailable: {reason}", "")
        if details.get("Provider", "").lower() == "iceberg":
            self._iceberg_stats(wanted.table, stats)
            described.ancestry = iceberg_format.ancestry(self._metadata.ask, wanted.table)
            if wanted.change_reader:
                described.consumed = self._consumed(wanted.table, record=described.ancestry)
        if details.get("Provider", "").lower() == "delta":
            described.history = self._delta_stats(wanted.table, stats)
            if wanted.change_reader:
                described.consumed = self._consumed(wanted.table, record=described.history)
        described.rows = catalog_rows(wanted, table_type, details, own, stats)
        return described

    def _delta_stats(self, table: str, stats: Stats) -> History:
        """A Delta table's stats: its versions (commits), its files and bytes
        now, and its rows. Returns its history."""
        history = self._ask("delta_history", table=table)
        stats.add(
            "commits",
            "Versions",
            len(history),
            "Versions in the table's history (one a write; VACUUM removes files, not versions).",
        )
        if history:
            latest = history[0]
            stats.add(
                "latest_commit",
                "Latest version",
                f"{latest['version']} ({latest['operation']}, committed {latest['timestamp']})",
                "The table's current version, its operation and when it was committed.",
            )
        detail = self._ask("delta_detail", table=table)
        if detail:
            stats.add(
                "files", "Data files", int(detail[0]["numFiles"]), "Files of the current version."
            )
            stats.add(
                "bytes", "Size of data", int(detail[0]["sizeInBytes"]), "Bytes of those files."
            )
        count = self._ask("count_rows", relation=table)
        stats.add("rows", "Rows", int(count[0][0]), "Rows a read of the current version returns.")
        return History.from_rows(history)

    def _iceberg_stats(self, table: str, stats: Stats) -> None:
        """An Iceberg table's stats: its snapshots, and what its current
        snapshot's summary counts."""
        rows = self._ask("iceberg_snapshot_stats", table=table)
        # The current snapshot: the newest, unless a rollback made an older one current.
        current = self._metadata.table_properties(table).get("current-snapshot-id")
        summary = next((r for r in rows if str(r["snapshot_id"]) == current), None)
        stats.add("commits", "Snapshots", len(rows), "Snapshots not expired (one a write).")
        if summary is None:
            return
        stats.add(
            "latest_commit",
            "Latest snapshot",
            f"{summary['snapshot_id']} ({summary['operation']}, committed {summary['committed_at']})",
            "The table's current snapshot, its operation and when it was committed.",
        )
        for stat_id, label, key, description in (
            ("files", "Data files", "total-data-files", "Data files of the current snapshot."),
            (
                "delete_files",
                "Delete files",
                "total-delete-files",
                "Delete files of the current snapshot: merge-on-read reads apply them until "
                "a compaction rewrites their data files.",
            ),
            ("bytes", "Size of data", "total-files-size", "Bytes of the current snapshot's files."),
            ("rows", "Rows", "total-records", "Records of the current snapshot's data files."),
        ):
            if summary[key] is not None:
                stats.add(stat_id, label, int(summary[key]), description)

    def _lake_stats(self, wanted: Wanted, location: str, stats: Stats, into: Described) -> None:
        table = wanted.table
        properties = self._metadata.hudi_properties(table)
        add_table_properties(stats, properties)
        commits = self._metadata.completed_commits(table, 100_000)
        writes = [c for c in commits if str(c["action"]) in WRITE_ACTIONS]
        into.completions = sorted(str(c["state_transition_time"]) for c in writes)
        if commits:
            latest = commits[0]  # newest instant first
            stats.add(
                "latest_commit",
                "Latest commit",
                f"{latest['commit_time']} ({latest['action']}, completed "
                f"{instant_time(str(latest['state_transition_time']))})",
                "The newest completed instant on the timeline, its action and when it "
                "completed (the instant's digits are its start, in the Spark JVM's zone).",
            )
        stats.add(
            "commits",
            "Commits",
            len(writes),
            "Completed writes (commit, deltacommit, replacecommit; a merge-on-read compaction "
            "completes as a commit) on the active timeline; archived instants are not counted.",
        )
        # (Hudi refuses to show compactions of a copy-on-write table: it has none.)
        merge_on_read = properties.get("hoodie.table.type") == "MERGE_ON_READ"
        compactions = self._ask("show_compaction", table=table) if merge_on_read else []
        pending = [row for row in compactions if str(row["state"]).upper() != "COMPLETED"]
        stats.add(
            "pending_compactions",
            "Pending compactions",
            len(pending),
            "Compactions planned or in flight; a merge-on-read snapshot read merges their "
            "log files until they complete.",
        )
        file_groups = {
            (str(row["partition"]), str(row["file_id"]))
            for row in self._ask("show_fsview_latest", table=table)
        }
        stats.add(
            "file_groups",
            "File groups",
            len(file_groups),
            "File groups in the latest file-system view (one base file, plus log files on "
            "merge-on-read, per group).",
        )
        if location:
            detail = self._ask("show_fs_path_detail", path=location)
            if detail:
                stats.add(
                    "bytes",
                    "Size on disk",
                    int(detail[0]["storage_size"]),
                    "Bytes of every file under the table's folder: file versions the "
                    "cleaner keeps, log files, the timeline and the metadata table.",
                )
        count = self._ask("count_rows", relation=table)
        stats.add("rows", "Rows", int(count[0][0]), "Records a snapshot read returns.")
        if wanted.change_reader:
            into.consumed = self._consumed(table)

    def _consumed(
        self, table: str, record: Ancestry | History | None = None
    ) -> dict[str, list[str]]:
        """upstream -> the positions this table's reads last consumed: from
        its latest commit that recorded positions (an Iceberg or Delta
        table's: the latest record of its ancestry or history, `record`), and
        a later run that read and wrote nothing (a table property)."""
        recorded: dict[str, str] = record.latest_record() if record is not None else {}
        for commit in [] if record is not None else self._metadata.completed_commits(table, 30):
            recorded = self._metadata.commit_extra_metadata(table, str(commit["commit_time"]))
            if any(key.startswith(change_range.POSITION_PREFIX) for key in recorded):
                break
        consumed = {
            key[len(change_range.POSITION_PREFIX) :]: [value]
            for key, value in recorded.items()
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


def add_table_properties(stats: Stats, properties: Mapping[str, str]) -> None:
    stats.add(
        "table_type",
        "Table type",
        properties.get("hoodie.table.type", ""),
        "COPY_ON_WRITE rewrites base files on write; MERGE_ON_READ appends log files "
        "that compaction merges.",
    )
    stats.add(
        "record_key",
        "Record key",
        properties.get("hoodie.table.recordkey.fields") or "none (append only)",
        "The fields that identify a record (hoodie.table.recordkey.fields).",
    )
    ordering = properties.get("hoodie.table.ordering.fields") or properties.get(
        "hoodie.table.precombine.field"
    )
    stats.add(
        "ordering_field",
        "Precombine / ordering field",
        ordering or "none (the latest write wins)",
        "Of two versions of a record, the one with the greater value is kept.",
    )
    stats.add(
        "partition_columns",
        "Partition columns",
        properties.get("hoodie.table.partition.fields") or "none",
        "The columns whose values name the table's partition folders.",
    )


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


def instant_time(instant: str) -> str:
    """yyyyMMddHHmmssSSS as a readable time (Hudi's instants are in the Spark JVM's zone)."""
    if len(instant) < 14 or not instant[:14].isdigit():
        return instant
    d = instant
    text = f"{d[0:4]}-{d[4:6]}-{d[6:8]} {d[8:10]}:{d[10:12]}:{d[12:14]}"
    return text + (f".{d[14:17]}" if len(d) >= 17 else "")
