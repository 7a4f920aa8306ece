"""The adapter class: dbt-spark's, with Hudi as the default format and its configs typed."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from dbt.adapters.base.meta import available
from dbt.adapters.base.relation import BaseRelation
from dbt.adapters.capability import Capability, CapabilityDict, CapabilitySupport, Support
from dbt.adapters.contracts.relation import RelationType
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark.impl import SparkAdapter, SparkConfig
from dbt_common.exceptions import DbtRuntimeError
from dbt_common.utils.executor import executor

from dbt.adapters.lakehouse.change_reads import ChangeRead, ChangeReadPlanner
from dbt.adapters.lakehouse.change_reads.queries import ChangeReadQueries
from dbt.adapters.lakehouse.connections import LakehouseConnectionManager
from dbt.adapters.lakehouse.credentials import LakehouseCredentials, LakehouseMethod
from dbt.adapters.lakehouse.data_tests import scope as data_test_scope
from dbt.adapters.lakehouse.data_tests.queries import DataTestQueries
from dbt.adapters.lakehouse.docs import catalog as docs_catalog
from dbt.adapters.lakehouse.formats import merge_commits
from dbt.adapters.lakehouse.formats import registry as table_formats
from dbt.adapters.lakehouse.formats.delta.table_config import DeltaTableConfig
from dbt.adapters.lakehouse.formats.hudi import compaction_order, concurrency, recovery
from dbt.adapters.lakehouse.formats.hudi import history as hudi_history
from dbt.adapters.lakehouse.formats.hudi import write_settings as session_settings
from dbt.adapters.lakehouse.formats.hudi.history import is_not_hudi
from dbt.adapters.lakehouse.formats.hudi.table_config import HudiTableConfig
from dbt.adapters.lakehouse.formats.iceberg.table_config import IcebergTableConfig
from dbt.adapters.lakehouse.formats.table_format import TableFormat
from dbt.adapters.lakehouse.lake.metadata import LakeMetadata
from dbt.adapters.lakehouse.relation import LakehouseRelation
from dbt.adapters.lakehouse.relation_configs import strategies
from dbt.adapters.lakehouse.statements import Statements
from dbt.adapters.lakehouse.storage import locations as storage
from dbt.adapters.lakehouse.writes import killed_creates
from dbt.adapters.lakehouse.writes.scratch_tables import ScratchTables
from dbt.adapters.lakehouse.writes.unchanged_builds import BuildRecords
from dbt.adapters.lakehouse.writes.written_tables import WrittenTables

if TYPE_CHECKING:
    import agate

logger = AdapterLogger("Lakehouse")


# The dbt package of the adapter's own macros (dbt/include/lakehouse).
ADAPTER_PACKAGE = "dbt_lakehouse"


@dataclass
class LakehouseConfig(SparkConfig):
    file_format: str = "hudi"
    table_type: str | None = None
    precombine_key: str | None = None
    partition_by: list[str] | str | None = None
    index: dict[str, Any] | None = None
    compaction: dict[str, Any] | None = None
    cleaning: dict[str, Any] | None = None
    file_sizing: dict[str, Any] | None = None
    hudi_options: dict[str, Any] | None = None
    delete_condition: str | None = None
    skip_unchanged: bool | None = None


class LakehouseAdapter(SparkAdapter):
    ConnectionManager = LakehouseConnectionManager
    AdapterSpecificConfigs = LakehouseConfig
    Relation = LakehouseRelation
    # Source freshness without a loaded_at_field: from the table's Hudi timeline
    # (lakehouse__get_relation_last_modified).
    _capabilities = CapabilityDict(
        {Capability.TableLastModifiedMetadata: CapabilitySupport(support=Support.Full)}
    )

    def __init__(self, config, mp_context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(config, mp_context)
        # The SQL of the adapter's own statements: lakehouse__* macros, a
        # project's own of the same name first (statements.py).
        self._statement_sources: dict[str, str | None] = {}
        self._statements_resolver: Any = None  # the resolver they were found with
        self._statements = Statements(self._statement_source)
        cast(LakehouseConnectionManager, self.connections).statements = self._statements
        self._lake = LakeMetadata(self._rows, self._statements)
        self._change_reads = ChangeReadPlanner(self._lake, self._columns_of, self.scratch_relation)
        self._change_queries = ChangeReadQueries(self._statements)
        # The formats the target's Spark server was found to hold (Thrift,
        # Connect: a server this process did not start), once asked.
        self._served_formats: list[str] | None = None
        self._table_configs: dict[tuple[str, str, str], Any] = {}
        # What each table model with skip_unchanged is built from (unchanged_builds).
        self._builds = BuildRecords(self._lake)
        # Per table this invocation wrote, its latest commit before the write,
        # for data tests scoped to what changed (data_test_scope).
        self._written = WrittenTables(
            self._lake, DataTestQueries(self._statements), self._changed_since
        )
        # Incremental models whose SQL said, as it compiled, that it has
        # nothing new to read (lake_nothing_to_read).
        self._nothing_to_read: set[str] = set()
        # Where writes stage; a token names this run's under optimistic concurrency.
        self._scratch = ScratchTables(
            self._lake,
            lambda: self.config.credentials.concurrency == concurrency.OPTIMISTIC,
            uuid.uuid4().hex[:8],
            cast(LakehouseConnectionManager, self.connections).stages_in_memory,
        )

    def _changed_since(self) -> dict[str, str]:
        """The var lakehouse_changed_since from the command line: a `dbt test`
        told which tables an earlier `dbt run` wrote (written_tables)."""
        cli_vars = getattr(self.config, "cli_vars", None) or {}
        value = cli_vars.get(data_test_scope.CHANGED_SINCE_VAR) or {}
        if not isinstance(value, dict):
            raise DbtRuntimeError(
                f"var {data_test_scope.CHANGED_SINCE_VAR} is {value!r}: give a mapping of "
                "schema.table to the table's latest instant before the run whose writes the "
                "tests check, e.g. --vars '{lakehouse_changed_since: {analytics.events: "
                '"20261127080000000"}}\''
            )
        return value

    def _rows(self, sql: str) -> list[Any]:
        _, table = self.execute(sql, fetch=True)
        return list(table)

    def _statement_source(self, name: str) -> str | None:
        """The source of the macro `name` as dbt resolves it (a project's own
        before the adapter's); None before dbt has loaded the macros."""
        resolver = self._macro_resolver
        if resolver is None:
            return None  # not kept: the macros come later
        if resolver is not self._statements_resolver:
            # Another invocation in this process (another project, perhaps):
            # what was found before may not be its macros.
            self._statement_sources.clear()
            self._statements_resolver = resolver
        if name not in self._statement_sources:
            macro = resolver.find_macro_by_name(name, self.config.project_name, None)
            # The adapter's own is its file's (statements.py): only another
            # package's or the project's replaces it.
            theirs = getattr(macro, "package_name", ADAPTER_PACKAGE) != ADAPTER_PACKAGE
            self._statement_sources[name] = macro.macro_sql if macro and theirs else None
        return self._statement_sources[name]

    def _columns_of(self, relation: BaseRelation) -> list[tuple[str, str]]:
        """(name, type) of a relation's own columns, without Hudi's metadata columns."""
        return [
            (c.name, c.data_type)
            for c in self.get_columns_in_relation(relation)
            if not c.name.startswith("_hoodie_")
        ]

    @classmethod
    def type(cls) -> str:
        return "lakehouse"

    # --- table formats and their catalogs (formats/registry.py) ---------------------

    def acquire_connection(self, name: str | None = None) -> Any:
        """Before a connection opens, the embedded session is told the
        formats the project's models are written in (the manifest dbt gave
        the adapter is whole by then), so that it loads them as it starts."""
        nodes = getattr(self._macro_resolver, "nodes", None)
        creds = self.config.credentials
        if nodes and isinstance(creds, LakehouseCredentials):
            if creds.method == LakehouseMethod.SESSION:
                creds.add_table_formats(table_formats.of_nodes(nodes.values()), "the project")
        return super().acquire_connection(name)

    def _check_served(self, fmt: str) -> None:
        """On a Thrift or Connect target, the server must hold the format: a
        server started without it fails on its catalog's first statement,
        with nothing that says why. (The embedded session checks as it starts.)"""
        served = self._server_formats()
        if served is not None:
            table_formats.check_served(served, fmt, str(self.config.credentials.method.value))

    def _server_formats(self) -> list[str] | None:
        """The formats a Thrift or Connect target's server was started with
        (asked once); None on the embedded session."""
        creds = self.config.credentials
        if not isinstance(creds, LakehouseCredentials) or creds.method == LakehouseMethod.SESSION:
            return None
        if self._served_formats is None:
            setting = {
                key: self._lake.session_setting(key)
                for key in (table_formats.FORMATS_CONF, "spark.sql.extensions")
            }
            self._served_formats = table_formats.started_with(
                setting[table_formats.FORMATS_CONF], setting["spark.sql.extensions"]
            )
        return self._served_formats

    @available
    def table_formats(self) -> list[str]:
        """The formats a model may be written in, the default first."""
        return list(table_formats.FORMATS)

    @available
    def formats_with_own_catalog(self) -> list[str]:
        """The formats whose tables a catalog of their own keeps (a model's
        `database` may name another such catalog: catalogs.sql)."""
        return [f for f in table_formats.FORMATS if table_formats.get(f).catalog]

    @available
    def table_format_of(self, relation: BaseRelation) -> str | None:
        """The format of an existing table as its catalog entry says (its
        provider); None for a view or a table of no lake format."""
        for fmt in table_formats.FORMATS:
            if getattr(relation, f"is_{fmt}", False):
                return fmt
        return None

    @available
    def iceberg_catalog(self, relation: BaseRelation) -> str:
        """The catalog whose procedures (`<catalog>.system.*`) act on an Iceberg
        table: the one its dbt database names, else the one that keeps the
        session catalog's Iceberg tables (formats/registry.py)."""
        own = table_formats.get(table_formats.OWN_CATALOG_FORMAT)
        return str(relation.database or own.catalog)

    def get_relation(self, database: str, schema: str, identifier: str) -> BaseRelation | None:
        # dbt gives Spark nodes an empty database: the session catalog, None
        # in dbt's relation cache (relation.py).
        return super().get_relation(database or None, schema, identifier)  # type: ignore[arg-type]

    def list_relations(self, database: str | None, schema: str) -> list[BaseRelation]:
        return super().list_relations(database or None, schema)

    def list_schemas(self, database: str) -> list[str]:
        # (dbt lists a catalog's schemas before its first model: where a
        # server without Iceberg would first fail. Only an Iceberg model may
        # name a catalog of its own: catalogs.sql.)
        if database:
            self._check_served(table_formats.OWN_CATALOG_FORMAT)
        try:
            return super().list_schemas(database)
        except DbtRuntimeError as exc:
            # Iceberg's Hadoop catalog before its first schema: no folder yet.
            if database and _no_namespace(exc):
                return []
            raise

    def list_relations_without_caching(self, schema_relation: BaseRelation) -> list[BaseRelation]:
        if not schema_relation.database:
            return super().list_relations_without_caching(schema_relation)
        served = self._server_formats()
        if served is not None and table_formats.OWN_CATALOG_FORMAT not in served:
            # dbt caches the schemas of every model, selected or not: on a
            # server without the format its catalog holds nothing, and a
            # model of that format fails by name when it runs (_check_served).
            return []
        # A catalog an Iceberg model names holds Iceberg tables only (no
        # views), and Spark 3.5 has no SHOW TABLE EXTENDED for them.
        qualified = f"{schema_relation.database}.{schema_relation.schema}"
        try:
            rows = self._rows(self._statements.sql("show_catalog_tables", schema=qualified))
        except DbtRuntimeError as exc:
            if _no_namespace(exc):
                return []
            raise
        return [
            self.Relation.create(
                database=schema_relation.database,
                schema=schema_relation.schema,
                identifier=row[1],
                type=RelationType.Table,
                **{f"is_{table_formats.OWN_CATALOG_FORMAT}": True},
            )
            for row in rows
        ]

    # --- dbt docs' catalog (docs/catalog.py) ----------------------------------------

    def get_filtered_catalog(  # type: ignore[no-untyped-def]
        self, relation_configs, used_schemas, relations=None
    ) -> tuple[agate.Table, list[Exception]]:
        """The catalog of the project's own relations (of those selected, when
        dbt passes `relations`); never a listing of whole schemas, whatever
        their size."""
        wanted = docs_catalog.wanted_relations(
            relation_configs, lambda node: self.Relation.create_from(self.config, node)
        )
        if relations is not None:
            chosen = {
                (str(r.database or "").lower(), str(r.schema).lower(), str(r.identifier).lower())
                for r in relations
            }
            wanted = [
                w
                for w in wanted
                if (str(w.database or "").lower(), w.schema.lower(), w.name.lower()) in chosen
            ]
        return self._catalog_of(wanted)

    def get_catalog(  # type: ignore[no-untyped-def]
        self, relation_configs, used_schemas
    ) -> tuple[agate.Table, list[Exception]]:
        return self.get_filtered_catalog(relation_configs, used_schemas)

    def _catalog_of(self, wanted: list[docs_catalog.Wanted]) -> tuple[agate.Table, list[Exception]]:
        described: dict[str, docs_catalog.Described] = {}
        exceptions: list[Exception] = []
        with executor(self.config) as pool:
            futures = [
                pool.submit_connected(  # type: ignore[no-untyped-call]
                    self, f"catalog_{schema}", self._catalog_schema, schema, relations
                )
                for schema, relations in docs_catalog.by_schema(wanted).items()
            ]
            for future in futures:
                exc = future.exception()
                if exc is None:
                    for relation, facts in future.result():
                        described[relation.table.lower()] = facts
                elif isinstance(exc, Exception):
                    exceptions.append(exc)
                else:
                    raise exc
        docs_catalog.add_consumer_stats(described)
        return docs_catalog.as_table(
            [row for facts in described.values() for row in facts.rows]
        ), exceptions

    def _catalog_schema(
        self, schema: str, relations: list[docs_catalog.Wanted]
    ) -> list[tuple[docs_catalog.Wanted, docs_catalog.Described]]:
        return docs_catalog.CatalogReader(self._lake).schema(schema, relations)

    def valid_incremental_strategies(self) -> list[str]:
        return list(strategies.STRATEGIES)

    @available
    def table_config(self, model: dict[str, Any]) -> Any:
        """The model's lake configs on its file_format, validated (raises a
        compilation error naming the model). Parsed once per model and
        config: several macros of one write ask for it, and its warnings are
        said once."""
        return self._table_config(model, self._format_of(model))

    @available
    def hudi_config(self, model: dict[str, Any]) -> HudiTableConfig:
        """table_config, as Hudi's (the macros' name for it before table_config)."""
        return cast(HudiTableConfig, self._table_config(model, table_formats.get("hudi")))

    @available
    def iceberg_config(self, model: dict[str, Any]) -> IcebergTableConfig:
        """table_config, as Iceberg's."""
        return cast(IcebergTableConfig, self._table_config(model, table_formats.get("iceberg")))

    @available
    def delta_config(self, model: dict[str, Any]) -> DeltaTableConfig:
        """table_config, as Delta's."""
        return cast(DeltaTableConfig, self._table_config(model, table_formats.get("delta")))

    def _format_of(self, model: dict[str, Any]) -> TableFormat:
        """The format a model's file_format names (an error naming the model when none)."""
        name = str(model.get("config", {}).get("file_format") or table_formats.DEFAULT_FORMAT)
        table_formats.check_names([name], f"Model '{model['name']}' (file_format)")
        return table_formats.get(name)

    def _table_config(self, model: dict[str, Any], fmt: TableFormat) -> Any:
        if fmt is not table_formats.default():
            self._check_served(fmt.name)
        config = model.get("config", {})
        # dbt reads an empty unique_key ('' or []) as no unique key at all.
        if config.get("unique_key") in ("", []):
            config = {key: value for key, value in config.items() if key != "unique_key"}
        cache_key = (
            fmt.name,
            model.get("unique_id") or model["name"],
            json.dumps(config, sort_keys=True, default=str),
        )
        parsed = self._table_configs.get(cache_key)
        if parsed is None:
            parsed = fmt.table_config(model["name"], config, self.connection_hudi_settings())
            for warning in getattr(parsed, "warnings", ()):
                logger.warning(warning)
            self._table_configs[cache_key] = parsed
        return parsed

    @available
    def services_after_write(self, relation: BaseRelation, lake: Any) -> list[str]:
        """The compaction and cleaning a write runs next, as its format's
        table services say (`lake`: the model's table_config)."""
        schema, identifier = _parts(relation)
        services = table_formats.get(lake.format).services(self._rows, self._statements)
        return services.after_write(lake, relation.database or None, f"{schema}.{identifier}")

    @available
    def table_service(
        self, node: dict[str, Any], service: str, position: str | None = None
    ) -> list[str]:
        """What lake_compact / lake_clean / lake_rollback (to `position`: an
        Iceberg snapshot id, a Delta version) run on a model whose format's
        table services say (TableFormat.services)."""
        table = f"{node['schema']}.{node.get('alias') or node['name']}"
        fmt = self._format_of(node)
        services = fmt.services(self._rows, self._statements)
        lake = self._table_config(node, fmt)
        return services.on_demand(lake, node.get("database") or None, table, service, position)

    @available
    def catalog_table_settings(self, relation: BaseRelation) -> tuple[dict[str, str], list[str]]:
        """(table properties, partition fields) of a table in a catalog of its
        own format (Iceberg's: its transforms, e.g. `bucket(4, id)`)."""
        table = _name(relation)
        return self._lake.table_properties(table), self._lake.describe(table).partitions

    @available
    def rebuilds_in_place(
        self,
        lake: HudiTableConfig,
        existing: BaseRelation,
        staged: BaseRelation,
        props: dict[str, str],
        partition_columns: list[str],
    ) -> bool:
        """Whether a `table` model's rebuild replaces its existing table's rows
        in one commit (`insert overwrite`, a Hudi replacecommit) instead of
        dropping and creating it: readers then never find the table missing
        or empty, and it keeps its timeline (time travel, rollback, its
        consumers' change reads). Only for a Hudi table whose layout, index
        and columns (names and types, in the order CREATE TABLE gives them:
        partition columns last) are the model's, and a non-empty result (an
        empty table is made by creating it). `props`, `partition_columns`:
        the existing table's (hudi_table_settings)."""
        if not getattr(existing, "is_hudi", False):
            return False
        if lake.changes(props, partition_columns).requires_full_refresh:
            return False
        model_columns = [(n.lower(), t.lower()) for n, t in self._columns_of(staged)]
        partitions = [c.lower() for c in lake.partition_by]
        created_order = [c for c in model_columns if c[0] not in partitions] + [
            c for name in partitions for c in model_columns if c[0] == name
        ]
        table_columns = [(n.lower(), t.lower()) for n, t in self._columns_of(existing)]
        return table_columns == created_order and self._lake.has_rows(str(staged))

    @available
    def moved_location(self, relation: BaseRelation, wanted: str) -> str | None:
        """Where an existing table is, when that is not `wanted` (the folder
        a model's location_root gives it); None when it is there."""
        location = self._lake.describe(_name(relation)).details.get("Location", "")
        return None if storage.same_folder(location, wanted) else location

    @available
    def hudi_table_settings(self, relation: BaseRelation) -> tuple[dict[str, str], list[str], str]:
        """(catalog table properties, partition columns, location) of an existing table."""
        return self._lake.table_settings(_name(relation))

    # --- session settings ------------------------------------------------------

    @available
    def connection_hudi_settings(self) -> dict[str, str]:
        """The `hoodie.*` settings every connection starts with (the profile's
        concurrency control, its server_side_parameters): a model's write
        settings come and go, these stay."""
        params = self.config.credentials.server_side_parameters
        return {k: str(v) for k, v in params.items() if k.startswith("hoodie.")}

    @available
    def replace_write_settings(self, settings: dict[str, Any]) -> str:
        """Make `settings` (empty: none) this connection's write settings,
        on top of its own (formats/hudi/write_settings.py)."""
        conf = cast(LakehouseConnectionManager, self.connections).session_conf()
        resets, sets = session_settings.plan(conf.all(), self.connection_hudi_settings(), settings)
        name = self.connections.get_thread_connection().name
        logger.debug(f"Write settings on {name}: reset {resets}, set {sorted(sets)}")
        conf.change(resets, sets)
        return ""

    @available
    def apply_write_settings(
        self,
        lake: HudiTableConfig,
        strategy: str,
        record_positions_of: Any = None,
        whole_table: bool = False,
        first_load: bool = False,
    ) -> str:
        """Set this write's session settings: the model's lake settings for
        `strategy`, and, for the commit that closes a model's run
        (`record_positions_of` is the model), the upstream positions it
        consumed and what it was built from, which Hudi copies into that
        commit's extra metadata. `whole_table`: an overwrite replaces the
        whole table (a rebuild in place); `first_load`: the first write to a
        table this run created (HudiTableConfig.write_settings)."""
        settings: dict[str, Any] = lake.write_settings(strategy, whole_table, first_load)
        if record_positions_of is not None:
            settings.update(self.position_settings(record_positions_of))
        self.replace_write_settings(settings)
        return ""

    @available
    def clear_write_settings(self) -> str:
        """Back to the connection's own settings, including after a write that
        failed before it could clear its own."""
        self.replace_write_settings({})
        return ""

    # --- recovery from a writer that died -------------------------------------

    @available
    def recover_metadata_table(self, relation: BaseRelation, location: str) -> str | None:
        """Drop the table's metadata table if a dead writer left a compaction
        of it pending, and say why (formats/hudi/recovery.py); not under
        optimistic concurrency, where the compaction may be a live writer's."""
        if self.config.credentials.concurrency == concurrency.OPTIMISTIC:
            return None
        same_disk = self.config.credentials.method == LakehouseMethod.SESSION
        pending = recovery.recover_metadata_table(
            self._lake.ask, _name(relation), location, same_disk
        )
        if not pending:
            return None
        return (
            f"{relation}: its metadata table had compaction {', '.join(pending)} left pending by a "
            "writer that died; the metadata table was dropped and this write rebuilds it."
        )

    @available
    def clear_killed_create(self, relation: BaseRelation, fmt: str, replaces: bool) -> None:
        """Before `relation` is created where the catalog has no table: remove
        what a run killed while creating it left, or fail if the place holds
        committed data (writes/killed_creates.py). `replaces`: the create is a CREATE
        OR REPLACE."""
        if relation.database:
            return  # a table of a catalog of its own: not made in two steps here
        schema, identifier = _parts(relation)
        place = killed_creates.Place(
            relation=str(relation),
            model=identifier,
            table=f"{schema}.{identifier}",
            location=self.scratch_location(relation),
            placeholder=f"{schema}.{self.scratch_identifier(identifier, 'leftover')}",
        )
        same_disk = self.config.credentials.method == LakehouseMethod.SESSION
        note = killed_creates.Recovery(self._lake, same_disk).clear(place, fmt, replaces)
        if note:
            logger.warning(note)

    @available
    def compacts_before_writing(self, table_props: dict[str, str]) -> bool:
        """Whether a write of this table (catalog properties) first runs its
        pending compaction plans: see compaction_order. Not with optimistic
        concurrency, where a pending plan may be another live writer's; the
        change reads then stop with a message if the write lands on it."""
        if self.config.credentials.concurrency == concurrency.OPTIMISTIC:
            return False
        return compaction_order.compacts_before_writing(table_props)

    # --- scratch tables ----------------------------------------------------------

    @available
    def scratch_location(self, relation: BaseRelation) -> str:
        return self._scratch.location(*_parts(relation))

    @available
    def scratch_identifier(self, identifier: str, role: str) -> str:
        return self._scratch.identifier(identifier, role)

    @available
    def scratch_relation(self, relation: BaseRelation, role: str) -> BaseRelation:
        """Where a write of `relation` stages its batch (or a read) for `role`
        (writes/scratch_tables.py)."""
        path, kind = self._scratch.path(*_parts(relation), role)
        return cast(BaseRelation, relation.incorporate(path=path, type=kind))  # type: ignore[no-untyped-call]

    @available
    def stage_in_memory(self, relation: BaseRelation, sql: str) -> None:
        cast(LakehouseConnectionManager, self.connections).stage_in_memory(
            str(relation.identifier), sql
        )

    @available
    def drop_staged(self, relation: BaseRelation) -> None:
        cast(LakehouseConnectionManager, self.connections).drop_staged(str(relation.identifier))

    # --- source freshness ------------------------------------------------------

    @available
    def hudi_last_modified(self, relation: BaseRelation) -> str | None:
        """When the table's latest completed instant completed, in UTC
        ('YYYY-MM-DD HH:MM:SS.ffffff'); None if nothing was ever committed to it."""
        try:
            return hudi_history.last_completed_utc(self._lake.ask, _name(relation))
        except Exception as exc:  # Spark's own exception on the embedded session
            if not is_not_hudi(exc):
                raise
            raise DbtRuntimeError(
                f"Source freshness without a loaded_at_field reads the table's Hudi timeline, "
                f"and {relation} is not a Hudi table. Give the source a loaded_at_field."
            ) from exc

    # --- change reads (change_reads/) -----------------------------------------

    @available
    def plan_change_read(
        self,
        model: dict[str, Any],
        this: BaseRelation | None,
        upstream: BaseRelation,
        mode: str,
        incremental: bool,
        on_gap: str,
        stage: bool = False,
        signed: bool = False,
    ) -> ChangeRead:
        """Plan what the model reads of `upstream` in this run (ChangeReadPlanner.plan)."""
        return self._change_reads.plan(
            model, this, upstream, mode, incremental, on_gap, stage, signed
        )

    @available
    def change_reads(self, model: dict[str, Any]) -> list[ChangeRead]:
        return self._change_reads.reads(model)

    @available
    def position_settings(self, model: dict[str, Any]) -> dict[str, str]:
        """Session settings that put the consumed positions (and, for a table
        model that skips unchanged builds, what it is built from) into the next commit."""
        return self._change_reads.position_settings(model, self._builds.commit_metadata(model))

    @available
    def skipped_write_positions(self, model: dict[str, Any]) -> dict[str, str]:
        """Table properties that record the consumed positions (a run that
        writes nothing, and an Iceberg table built whole)."""
        return self._change_reads.skipped_write_positions(model)

    @available
    def commit_record(self, model: dict[str, Any], run: str) -> str:
        """What an Iceberg or Delta model's incremental write records of what
        it consumed and was built from: the write-audit-publish id an Iceberg
        write is staged under (formats/iceberg/history.py), the user metadata of a
        Delta commit (formats/delta/history.py); "" when there is nothing to record."""
        recorded = self._change_reads.consumed_positions(model)
        recorded.update(self._builds.commit_metadata(model))
        return merge_commits.wap_id(run, recorded) if recorded else ""

    @available
    def table_records(self, model: dict[str, Any]) -> dict[str, str]:
        """The same, as the table properties of an Iceberg or Delta table built whole."""
        return {
            **self._change_reads.skipped_write_positions(model),
            **self._builds.table_properties(model),
        }

    @available
    def change_read_relation(self, read: ChangeRead) -> str:
        """A parenthesised relation for the model's FROM clause (ChangeReadQueries)."""
        return self._change_queries.relation(read)

    @available
    def change_read_source(self, read: ChangeRead) -> str:
        """The relation that reads the range from the upstream itself."""
        return self._change_queries.source(read)

    @available
    def changed_keys_sql(self, read: ChangeRead, keys: list[str]) -> str:
        return self._change_queries.changed_keys(read, keys)

    @available
    def signed_changes_sql(self, read: ChangeRead, columns: list[str]) -> str:
        return self._change_queries.signed_changes(read, columns, "lake_signed_changes")

    # --- models rebuilt only when an upstream changed (unchanged_builds) -----

    @available
    def unchanged_since_last_build(
        self,
        model: dict[str, Any],
        existing: BaseRelation | None,
        upstreams: list[BaseRelation | None],
    ) -> bool:
        """True when `existing` was built from exactly what the model would read
        now (see unchanged_builds); else the next write records what it reads."""
        return self._builds.unchanged(model, _table(existing), [_table_name(u) for u in upstreams])

    @available
    def nothing_new_to_read(
        self,
        model: dict[str, Any],
        existing: BaseRelation | None,
        upstreams: list[BaseRelation | None],
    ) -> bool:
        """For an incremental model: True when every range it reads with
        lake_changes in this run is empty, and its definition and its other
        upstreams are what `existing` was last written from (see
        unchanged_builds)."""
        if model["unique_id"] in self._nothing_to_read and _table(existing) is not None:
            return True
        upstream_names = [_table_name(u) for u in upstreams]
        reads = self.change_reads(model)
        return self._builds.nothing_new(model, _table(existing), upstream_names, reads)

    @available
    def note_nothing_to_read(self, model: dict[str, Any]) -> str:
        """Called while the model's SQL compiles (lake_nothing_to_read):
        it found nothing new in what it reads (a landing folder with no new
        file), so with skip_unchanged it is not run."""
        self._nothing_to_read.add(model["unique_id"])
        return ""

    # --- data tests scoped to what this invocation wrote (data_test_scope) ---------

    @available
    def note_write_start(
        self, relation: BaseRelation, existing: BaseRelation | None, scope_mode: str
    ) -> str:
        """Before a model writes, when data tests are scoped to what changed:
        remember the table's latest commit (written_tables)."""
        if data_test_scope.check_mode(scope_mode, relation.identifier or "") == "changed":
            created = existing is None or existing.is_view
            self._written.note_start(_name(relation).lower(), created)
        return ""

    @available
    def test_scope_relation(
        self,
        relation: BaseRelation,
        test_node: dict[str, Any],
        where: str,
        scope_mode: str,
        tested: dict[str, Any] | None = None,
        nodes: dict[str, Any] | None = None,
    ) -> str | None:
        """The subquery that scopes this data test to what this invocation
        wrote in `relation`, or None to check the whole of it (written_tables)."""

        def relation_of(node: Any) -> str:
            return _name(
                self.Relation.create(schema=node.get("schema"), identifier=node.get("alias"))
            )

        return self._written.scoped_relation(
            _name(relation), test_node, where, scope_mode, tested, nodes or {}, relation_of
        )

    @available
    def changed_values_sql(
        self, relations: list[Any], columns: list[str], scope_mode: str
    ) -> str | None:
        """A query of the distinct values of `columns` among the rows this
        invocation wrote to any of `relations` (written_tables)."""
        names = [_name(r) if isinstance(r, BaseRelation) else None for r in relations]
        return self._written.changed_values_sql(names, columns, scope_mode)


def _no_namespace(exc: Exception) -> bool:
    """A schema (namespace) of a catalog that does not exist yet."""
    return "SCHEMA_NOT_FOUND" in str(exc) or "NoSuchNamespaceException" in str(exc)


def _parts(relation: BaseRelation) -> tuple[str, str]:
    """(schema, identifier): a relation the adapter looks at has both."""
    if relation.schema is None or relation.identifier is None:
        raise DbtRuntimeError(f"{relation} has no schema or no name.")
    return relation.schema, relation.identifier


def _name(relation: BaseRelation) -> str:
    """schema.table, as the adapter's own statements name a table (catalog.schema.table
    for a table of another catalog than the session's)."""
    schema, identifier = _parts(relation)
    catalog = f"{relation.database}." if relation.database else ""
    return f"{catalog}{schema}.{identifier}"


def _table_name(relation: BaseRelation | None) -> str | None:
    """schema.table; None for an upstream that is ephemeral or not built yet."""
    return _name(relation) if relation is not None else None


def _table(existing: BaseRelation | None) -> str | None:
    """The Hudi table a model wrote before, if any (a view has no commits)."""
    return None if existing is None or existing.is_view else _table_name(existing)
