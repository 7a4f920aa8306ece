"""The adapter class: dbt-spark's, with Hudi as the default format and its configs typed."""

from __future__ import annotations

import dataclasses
import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from dbt.adapters.base.meta import available
from dbt.adapters.base.relation import BaseRelation
from dbt.adapters.capability import Capability, CapabilityDict, CapabilitySupport, Support
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark.impl import SparkAdapter, SparkConfig
from dbt_common.exceptions import CompilationError, DbtRuntimeError

from dbt.adapters.lakehouse import (
    commit_reads,
    concurrency,
    recovery,
    session_settings,
    test_scope,
    unchanged_builds,
)
from dbt.adapters.lakehouse.commit_reads import ChangeRead
from dbt.adapters.lakehouse.connections import LakehouseConnectionManager, child_session
from dbt.adapters.lakehouse.relation_configs import HudiTableConfig

logger = AdapterLogger("Lakehouse")


@dataclass
class LakehouseConfig(SparkConfig):
    file_format: str = "hudi"
    table_type: str | None = None
    precombine_key: str | None = None
    partition_by: list[str] | str | None = None
    index: dict[str, Any] | None = None
    compaction: dict[str, Any] | None = None
    cleaning: dict[str, Any] | None = None
    hudi_options: dict[str, Any] | None = None
    delete_condition: str | None = None
    skip_unchanged: bool | None = None


class LakehouseAdapter(SparkAdapter):
    ConnectionManager = LakehouseConnectionManager  # type: ignore[assignment]
    AdapterSpecificConfigs = LakehouseConfig  # type: ignore[assignment]
    # Source freshness without a loaded_at_field: from the table's Hudi timeline
    # (lakehouse__get_relation_last_modified).
    _capabilities = CapabilityDict(
        {Capability.TableLastModifiedMetadata: CapabilitySupport(support=Support.Full)}
    )

    # Instants of an upstream: its whole active timeline (Hudi keeps at most
    # hoodie.keep.max.commits = 30 by default).
    TIMELINE_SCAN = 1000
    # A model's position is in its latest write; only table services (compaction,
    # clustering) come between, so a short look back suffices.
    POSITION_SCAN = 30

    def __init__(self, config, mp_context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(config, mp_context)
        # Ranges each model's lake_changes() planned at compile time, for its
        # materialization to log and to record with its write.
        self._change_reads: dict[str, dict[str, ChangeRead]] = {}
        self._hudi_configs: dict[tuple[str, str], HudiTableConfig] = {}
        self._schema_locations: dict[str, str] = {}
        # What each table model with skip_unchanged is built from (unchanged_builds).
        self._built_from: dict[str, str] = {}
        # Per table this invocation wrote: its latest commit before the write
        # (None when the write created it), for data tests scoped to what changed.
        self._written_since: dict[str, test_scope.Since | None] = {}
        self._partitions_read: set[str] = set()
        # Incremental models whose SQL said, as it compiled, that it has
        # nothing new to read (lakehouse_nothing_to_read).
        self._nothing_to_read: set[str] = set()
        # Names this run's scratch tables under optimistic concurrency.
        self._run_token = uuid.uuid4().hex[:8]

    @classmethod
    def type(cls) -> str:
        return "lakehouse"

    def valid_incremental_strategies(self) -> list[str]:
        return ["append", "merge", "upsert", "insert_overwrite", "microbatch"]

    @available
    def hudi_config(self, model: dict[str, Any]) -> HudiTableConfig:
        """The model's lake configs, validated (raises a compilation error naming the model).
        Parsed once per model and config: several macros of one write ask for it,
        and its warnings are said once."""
        config = model.get("config", {})
        # dbt reads an empty unique_key ('' or []) as no unique key at all.
        if config.get("unique_key") in ("", []):
            config = {key: value for key, value in config.items() if key != "unique_key"}
        cache_key = (
            model.get("unique_id") or model["name"],
            json.dumps(config, sort_keys=True, default=str),
        )
        parsed = self._hudi_configs.get(cache_key)
        if parsed is None:
            parsed = HudiTableConfig.from_model_config(model["name"], config)
            for warning in parsed.warnings:
                logger.warning(warning)
            self._hudi_configs[cache_key] = parsed
        return parsed

    @available
    def hudi_table_settings(self, relation: BaseRelation) -> tuple[dict[str, str], list[str], str]:
        """(catalog table properties, partition columns, location) of an existing table."""
        _, props = self.execute(f"show tblproperties {relation}", fetch=True)
        _, described = self.execute(f"describe table extended {relation}", fetch=True)
        partitions: list[str] = []
        location = ""
        in_partitions = False
        for row in described:
            name = (row[0] or "").strip()
            if name == "# Partition Information":
                in_partitions = True
            elif in_partitions and (not name or name.startswith("# Detailed")):
                in_partitions = False
            elif in_partitions and not name.startswith("#"):
                partitions.append(name)
            elif name == "Location":
                location = row[1]
        return {row[0]: row[1] for row in props}, partitions, location

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
        on top of its own (session_settings.py)."""
        connection = self.connections.get_thread_connection()
        session = child_session(connection)
        if session is not None:  # embedded: the session's own configuration
            current = {row[0]: row[1] for row in session.sql("set").collect()}
        else:
            _, rows = self.execute("set", fetch=True)
            current = {str(row[0]): str(row[1]) for row in rows}
        resets, sets = session_settings.plan(current, self.connection_hudi_settings(), settings)
        logger.debug(f"Write settings on {connection.name}: reset {resets}, set {sorted(sets)}")
        if session is not None:
            for key in resets:
                session.conf.unset(key)
            for key, value in sets.items():
                session.conf.set(key, value)
        else:
            for statement in session_settings.statements(resets, sets):
                self.execute(statement)
        return ""

    # --- recovery from a writer that died -------------------------------------

    @available
    def recover_metadata_table(self, relation: BaseRelation, location: str) -> str | None:
        """Drop the table's metadata table if a dead writer left a compaction of
        it pending, and say why; the next write rebuilds it from the files.

        Hudi 1.2 does not recover such a compaction before the next write's
        metadata update lands in the half-compacted file slices: that write
        fails (ArrayIndexOutOfBounds in HoodieMetadataPayload, or, while the
        dead writer's heartbeat lasts, a HoodieLockException), and so would
        every run until someone intervenes. The metadata table holds only
        derived data (file listings, column statistics), so rebuilding it loses
        nothing. Writes to one table are serial within a run, so a pending
        compaction seen here was left by a process that is gone; with
        optimistic concurrency it may belong to a live writer, so nothing is
        dropped then."""
        if self.config.credentials.concurrency == concurrency.OPTIMISTIC:
            return None
        pending = recovery.pending_metadata_compactions(self._metadata_timeline(location))
        if not pending:
            return None
        self.execute(
            f"call delete_metadata_table(table => '{relation.schema}.{relation.identifier}')"
        )
        return (
            f"{relation}: its metadata table had compaction {', '.join(pending)} left pending by a "
            "writer that died; the metadata table was dropped and this write rebuilds it."
        )

    def _metadata_timeline(self, location: str) -> list[Any]:
        if recovery.has_no_metadata_table(location):
            return []
        path = recovery.metadata_table_path(location)
        try:
            _, rows = self.execute(f"call show_timeline(path => '{path}', limit => 50)", fetch=True)
        except DbtRuntimeError as exc:
            if recovery.is_missing_table(str(exc)):
                return []  # no metadata table (disabled, or being rebuilt)
            raise
        return list(rows)

    # --- scratch tables ----------------------------------------------------------

    @available
    def scratch_location(self, relation: BaseRelation) -> str:
        """Where a managed table of this name would live: a scratch table is
        written there in overwrite mode, so files a killed run left behind are
        replaced instead of blocking every later run (LOCATION_ALREADY_EXISTS)."""
        schema = relation.schema
        if schema not in self._schema_locations:
            _, rows = self.execute(f"describe schema extended {schema}", fetch=True)
            found = [row[1] for row in rows if row[0] == "Location"]
            if not found:
                raise DbtRuntimeError(f"Spark reports no location for schema {schema}.")
            self._schema_locations[schema] = found[0].rstrip("/")
        return f"{self._schema_locations[schema]}/{relation.identifier.lower()}"

    @available
    def scratch_identifier(self, identifier: str, role: str) -> str:
        """The name of a model's scratch table for one role (its batch, a staged
        read). One name per model and role, so that the next run takes over what
        a killed run left. With optimistic concurrency another writer may build
        the same model at the same time, so each run's names carry a token of
        its own (a killed run's scratch table then stays, under its own name)."""
        name = f"{identifier}__lakehouse_{role}"
        if self.config.credentials.concurrency == concurrency.OPTIMISTIC:
            name += f"_{self._run_token}"
        return name

    # --- source freshness ------------------------------------------------------

    @available
    def hudi_last_modified(self, relation: BaseRelation) -> str | None:
        """When the table's latest completed instant completed, in UTC
        ('YYYY-MM-DD HH:MM:SS.ffffff'); None if nothing was ever committed to it."""
        table = f"{relation.schema}.{relation.identifier}"
        try:
            # A few, not one: with concurrent writers, the instant requested last
            # need not be the one that completed last.
            commits = self._completed_commits(table, 10)
        except Exception as exc:  # Spark's own exception on the embedded session
            if "is not a Hudi table" not in str(exc):
                raise
            raise DbtRuntimeError(
                f"Source freshness without a loaded_at_field reads the table's Hudi timeline, "
                f"and {relation} is not a Hudi table. Give the source a loaded_at_field."
            ) from exc
        if not commits:
            return None
        completed = max(str(c["state_transition_time"]) for c in commits)
        # Instant times are wall-clock times in the table's timeline zone: Hudi's
        # default, LOCAL, is the zone of the JVM that wrote them.
        props, _, _ = self.hudi_table_settings(relation)
        if props.get("hoodie.table.timeline.timezone", "LOCAL").upper() == "UTC":
            zone = "UTC"
        else:
            _, rows = self.execute(
                "select reflect('java.time.ZoneId', 'systemDefault')", fetch=True
            )
            zone = str(rows[0][0])
        moment = datetime.strptime(completed[:17], "%Y%m%d%H%M%S%f").replace(tzinfo=ZoneInfo(zone))
        return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")

    # --- incremental commit reads ---------------------------------------------

    def _completed_commits(self, table: str, limit: int) -> list[Any]:
        _, rows = self.execute(
            f"call show_commits(table => '{table}', limit => {limit})", fetch=True
        )
        return list(rows)

    def _timeline(self, table: str, with_cleans: bool) -> commit_reads.Timeline:
        commits = tuple(
            (str(c["commit_time"]), str(c["state_transition_time"]))
            for c in self._completed_commits(table, self.TIMELINE_SCAN)
        )
        retained_from = None
        if with_cleans:
            _, cleans = self.execute(
                f"call show_cleans(table => '{table}', limit => 10)", fetch=True
            )
            # A clean that names no earliest instant to retain (file-version
            # policy) may have removed any slice written before it ran.
            floors = [
                str(c["earliest_commit_to_retain"] or c["clean_time"])
                for c in cleans
                if c["total_files_deleted"]
            ]
            retained_from = max(floors, default=None)
        return commit_reads.Timeline(commits, retained_from)

    def _has_rows(self, relation: BaseRelation) -> bool:
        _, rows = self.execute(f"select 1 from {relation} limit 1", fetch=True)
        return len(rows) > 0

    def _consumed_position(self, table: str, upstream: str) -> str | None:
        """The upstream instant recorded by this table's latest write that
        recorded one, or by a later run that read a range and wrote nothing."""
        committed = self._recorded(table, commit_reads.position_key(upstream))
        _, rows = self.execute(f"show tblproperties {table}", fetch=True)
        key = commit_reads.skipped_position_key(upstream)
        skipped = next((str(row[1]) for row in rows if row[0] == key), None)
        return commit_reads.latest_position(committed, skipped)

    @available
    def skipped_write_positions(self, model: dict[str, Any]) -> dict[str, str]:
        """Table properties that record how far a run read when it wrote no
        commit (see commit_reads.SKIPPED_PREFIX)."""
        return {
            commit_reads.skipped_position_key(r.upstream): r.end
            for r in self.change_reads(model)
            if r.end is not None
        }

    def _recorded(self, table: str, key: str) -> str | None:
        """The value of `key` in the extra metadata of this table's latest commit that has it."""
        for commit in self._completed_commits(table, self.POSITION_SCAN):
            _, rows = self.execute(
                f"call show_commit_extra_metadata(table => '{table}', "
                f"instant_time => '{commit['commit_time']}', metadata_key => '{key}')",
                fetch=True,
            )
            for row in rows:
                return str(row["metadata_value"])
        return None

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
        """Plan what the model reads of `upstream` in this run (see commit_reads).
        `stage`: a run will materialize the model, so an incremental range is
        copied once into a scratch table that the model's query then reads."""
        name = model["name"]
        if signed and model.get("config", {}).get("delete_condition"):
            raise CompilationError(
                f"Model '{name}': lake_signed_changes adds deltas to the stored rows, which a "
                "delete_condition's second commit could make a rerun add twice. Remove "
                "delete_condition (groups whose changes cancel out keep a row of zeros), or "
                "recompute the touched groups with lake_changed_keys instead."
            )
        upstream_name = f"{upstream.schema}.{upstream.identifier}"
        consumed = (
            self._consumed_position(f"{this.schema}.{this.identifier}", upstream_name)
            if incremental
            else None
        )
        columns: list[tuple[str, str]] = []
        if mode == "cdc":
            # A full cdc read renders the snapshot as images of these columns.
            columns = [
                (c.name, c.data_type)
                for c in self.get_columns_in_relation(upstream)
                if not c.name.startswith("_hoodie_")
            ]
        timeline = self._timeline(upstream_name, with_cleans=mode == "cdc")
        # Deltas of a full read, added to stored rows that already count them,
        # would count them twice: a signed read never falls back to a full one.
        on_gap = "fail" if signed else on_gap
        read = commit_reads.plan_read(
            upstream_name, mode, consumed, timeline, on_gap, name, columns
        )
        if incremental and consumed is None:
            note = f"Model '{name}' has no recorded position for {upstream_name}"
            # (An empty table, e.g. first built while the upstream had no
            # commit, has nothing a full read could count twice.)
            if signed and self._has_rows(this):
                raise CompilationError(
                    f"{note}, and lake_signed_changes cannot read it in full on an incremental run "
                    f"(the deltas would be added to rows that already count them). "
                    f"Rebuild with `dbt run --full-refresh --select {name}`."
                )
            read = dataclasses.replace(read, note=f"{note}: reading it in full.")
        reads = self._change_reads.setdefault(model["unique_id"], {})
        slot = (upstream_name, mode)
        number = list(reads).index(slot) + 1 if slot in reads else len(reads) + 1
        staged_as = (
            f"{this.schema}.{self.scratch_identifier(this.identifier, f'read_{number}')}"
            if stage and read.is_incremental
            else None
        )
        read = dataclasses.replace(read, staged_as=staged_as)
        reads[slot] = read
        return read

    # --- table models rebuilt only when an upstream changed -------------------

    @available
    def unchanged_since_last_build(
        self,
        model: dict[str, Any],
        existing: BaseRelation | None,
        upstreams: list[BaseRelation | None],
    ) -> bool:
        """True when `existing` was built from exactly what the model would read
        now (see unchanged_builds); else the next write records what it reads."""
        if not upstreams:  # selects from nothing: nothing to compare
            return False
        built_from = self._note_built_from(model, model.get("compiled_code") or "", upstreams)
        return built_from is not None and self._last_built_from(existing) == built_from

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
        if (
            model["unique_id"] in self._nothing_to_read
            and existing is not None
            and not existing.is_view
        ):
            return True
        reads = self.change_reads(model)
        if not reads:
            return False
        by_range = {read.upstream.lower() for read in reads}
        others = [
            u
            for u in upstreams
            if u is None or f"{u.schema}.{u.identifier}".lower() not in by_range
        ]
        # Noted even when a range has rows: the write records it.
        built_from = self._note_built_from(model, model.get("raw_code") or "", others)
        return (
            built_from is not None
            and all(read.is_empty for read in reads)
            and self._last_built_from(existing) == built_from
        )

    @available
    def note_nothing_to_read(self, model: dict[str, Any]) -> str:
        """Called while the model's SQL compiles (lakehouse_nothing_to_read):
        it found nothing new in what it reads (a landing folder with no new
        file), so with skip_unchanged it is not run."""
        self._nothing_to_read.add(model["unique_id"])
        return ""

    def _note_built_from(
        self, model: dict[str, Any], code: str, upstreams: list[BaseRelation | None]
    ) -> str | None:
        """What this build reads (unchanged_builds.built_from), kept for the
        model's next commit to record; None if it cannot be compared."""
        instants: dict[str, str | None] = {}
        for upstream in upstreams:
            if upstream is None:  # ephemeral, or not built yet: nothing to compare
                return None
            name = f"{upstream.schema}.{upstream.identifier}"
            instants[name] = self._latest_instant(name)
        built_from = unchanged_builds.built_from(code, model.get("config", {}), instants)
        if built_from is not None:
            self._built_from[model["unique_id"]] = built_from
        return built_from

    def _last_built_from(self, existing: BaseRelation | None) -> str | None:
        if existing is None or existing.is_view:
            return None
        return self._recorded(
            f"{existing.schema}.{existing.identifier}", unchanged_builds.BUILT_FROM_KEY
        )

    def _latest_instant(self, table: str) -> str | None:
        latest = self._latest_commit(table)
        return latest.instant if latest else None

    def _latest_commit(self, table: str) -> test_scope.Since | None:
        try:
            commits = self._completed_commits(table, 10)
        except Exception as exc:  # Spark's own exception on the embedded session
            if "is not a Hudi table" in str(exc):
                return None
            raise
        if not commits:
            return None
        # Listed newest instant first; an older instant (a compaction) may
        # have completed after a newer one.
        return test_scope.Since(
            instant=str(commits[0]["commit_time"]),
            completed=max(str(c["state_transition_time"]) for c in commits),
        )

    # --- data tests scoped to what this invocation wrote (test_scope) ---------

    @available
    def note_write_start(
        self, relation: BaseRelation, existing: BaseRelation | None, scope_mode: str
    ) -> str:
        """Before a model writes, when data tests are scoped to what changed:
        remember the table's latest commit (its instant, and when it
        completed); this write's rows come from the commits after it."""
        if test_scope.check_mode(scope_mode, relation.identifier) != "changed":
            return ""
        key = self._table_key(relation)
        if key not in self._written_since:
            self._written_since[key] = (
                None if existing is None or existing.is_view else self._latest_commit(key)
            )
        return ""

    def _written_after(self, key: str) -> test_scope.Since | None:
        """The table's commit before this invocation wrote it (None: not
        written, or created by it), with the partitions its later commits
        wrote, read once from their commit metadata when a test first asks (the
        tests of a model run after its write)."""
        since = self._written_since.get(key)
        if since is None or key in self._partitions_read:
            return since
        commits = [str(c["commit_time"]) for c in self._completed_commits(key, 20)]
        later = [instant for instant in commits if instant > since.instant]
        # Not all of them listed (20 writes since): leave every partition in.
        if later and len(later) < len(commits):
            paths = []
            for instant in later:
                _, rows = self.execute(
                    f"call show_commit_partitions(table => '{key}', instant_time => '{instant}')",
                    fetch=True,
                )
                paths.extend(str(row["partition_path"]) for row in rows)
            written = test_scope.partitions_predicate(paths)
            if written:
                since = dataclasses.replace(
                    since, partition_columns=written[0], partitions=written[1]
                )
        elif commits and not later:  # the model wrote nothing: no row to read
            since = dataclasses.replace(since, partitions="false")
        self._written_since[key] = since
        self._partitions_read.add(key)
        return since

    @staticmethod
    def _table_key(relation: BaseRelation) -> str:
        return f"{relation.schema}.{relation.identifier}".lower()

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
        wrote in `relation`, or None to check the whole of it. `tested` (the
        model the test is attached to) and `nodes` (the graph's) let a model
        that declares lakehouse_rows_from be scoped by its upstream's writes."""
        if scope_mode == "full":  # the default: no look at the node
            return None
        if test_scope.check_mode(scope_mode, test_node.get("name", "")) != "changed":
            return None
        config = test_node.get("config") or {}
        kind = test_scope.test_kind(test_node.get("test_metadata"), config.get("meta"))
        if kind is None:
            return None
        since = self._written_after(self._table_key(relation))
        if since:
            return test_scope.scoped_relation(str(relation), kind, since, where)
        follows = test_scope.rows_from(tested, nodes or {}) if tested else None
        if follows is None:
            return None
        upstream, key, partition_by = follows
        upstream_relation = self.Relation.create(
            schema=upstream.get("schema"), identifier=upstream.get("alias")
        )
        since = self._written_after(self._table_key(upstream_relation))
        if not since:
            return None
        return test_scope.rows_from_relation(
            str(relation), str(upstream_relation), key, since, where, partition_by
        )

    @available
    def changed_values_sql(
        self, relations: list[Any], columns: list[str], scope_mode: str
    ) -> str | None:
        """A query of the distinct values of `columns` among the rows this
        invocation wrote to any of `relations`; None when one of them is to be
        checked whole (not written by this invocation, created by it, or given
        as a filtered query rather than a table)."""
        if (
            scope_mode == "full"
            or test_scope.check_mode(scope_mode, "changed_values_sql") != "changed"
        ):
            return None
        written = []
        for relation in relations:
            if not isinstance(relation, BaseRelation):
                return None
            since = self._written_after(self._table_key(relation))
            if not since:
                return None
            written.append((str(relation), since))
        return test_scope.changed_values_sql(written, columns)

    @available
    def change_reads(self, model: dict[str, Any]) -> list[ChangeRead]:
        return list(self._change_reads.get(model["unique_id"], {}).values())

    @available
    def position_settings(self, model: dict[str, Any]) -> dict[str, str]:
        """Session settings that put the consumed positions (and, for a table
        model that skips unchanged builds, what it is built from) into the next commit."""
        settings = {
            commit_reads.position_key(r.upstream): r.end
            for r in self.change_reads(model)
            if r.end is not None
        }
        if model["unique_id"] in self._built_from:
            settings[unchanged_builds.BUILT_FROM_KEY] = self._built_from[model["unique_id"]]
        if not settings:
            return {}
        return {
            "hoodie.datasource.write.commitmeta.key.prefix": commit_reads.COMMIT_META_PREFIX,
            **settings,
        }

    # A cdc read already carries the upstream's columns (planning described
    # them), so these need no second look at the upstream.
    @staticmethod
    def _column_types(read: ChangeRead) -> dict[str, str]:
        return {name.lower(): data_type for name, data_type in read.columns}

    @available
    def changed_keys_sql(self, read: ChangeRead, keys: list[str]) -> str:
        return commit_reads.changed_keys_sql(read, keys, self._column_types(read))

    @available
    def signed_changes_sql(self, read: ChangeRead, columns: list[str]) -> str:
        return commit_reads.signed_changes_sql(
            read, columns, self._column_types(read), "lake_signed_changes"
        )
