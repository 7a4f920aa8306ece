"""All lake-format configs of one model, parsed and validated in one place.

Macros never build Hudi option names themselves: they ask this object for the
options of the CREATE TABLE, the settings of a write and what changed on an
existing table. Every mistake is reported with the model's name, the config
key, the value and what is allowed, because Hudi silently ignores option names
it does not know (`precombineKey` instead of `orderingFields` means duplicates).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from dbt.adapters.lakehouse.formats.hudi.settings.file_sizing import FileSizingConfig
from dbt.adapters.lakehouse.formats.hudi.settings.index import IndexConfig
from dbt.adapters.lakehouse.formats.hudi.settings.spark_options import fold_options
from dbt.adapters.lakehouse.formats.hudi.settings.write_defaults import WRITE_DEFAULTS
from dbt.adapters.lakehouse.relation_configs import strategies
from dbt.adapters.lakehouse.relation_configs.base import Changeset, LakeSetting, LiveTable
from dbt.adapters.lakehouse.relation_configs.cleaning import CleaningConfig
from dbt.adapters.lakehouse.relation_configs.compaction import CompactionConfig
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import stringify
from dbt.adapters.lakehouse.relation_configs.table_layout import KeyedTable, TableLayout

# An overwrite keeps one row per key, the precombine_key's largest, as an
# upsert does; an append writes the batch as it is.
COMBINE_BEFORE_INSERT = "hoodie.combine.before.insert"
INSERT_INTO_OPERATION = "hoodie.spark.sql.insert.into.operation"


@dataclass(frozen=True)
class WriteOperation(LakeSetting):
    """The Hudi write operation behind an incremental strategy; set per write."""

    CONFIG_KEY = "incremental_strategy"
    # The datasource writer's name for the operation, and the batch's
    # deduplication by key, which follows the strategy too (write_settings).
    ALIASES = frozenset({"hoodie.datasource.write.operation", COMBINE_BEFORE_INSERT})

    strategy: str = "append"

    @classmethod
    def examples(cls) -> Iterable[WriteOperation]:
        return [cls(strategy) for strategy in strategies.STRATEGIES]

    def hoodie_settings(self) -> dict[str, str]:
        return {INSERT_INTO_OPERATION: strategies.STRATEGIES[self.strategy].operation}

    @classmethod
    def block_from_hoodie(
        cls, model: str, settings: Mapping[str, str], written: Mapping[str, str]
    ) -> dict[str, Any]:
        key = next(iter(settings))
        what = (
            "Deduplicating a batch by unique_key before it is written"
            if key == COMBINE_BEFORE_INSERT
            else "The write operation"
        )
        raise LakeConfigError(
            model,
            written[key],
            settings[key],
            f"{what} follows the model's incremental_strategy "
            f"({', '.join(strategies.STRATEGIES)}): set that instead.",
        )


# The table's settings, each a LakeSetting read from the model's config and
# from the live table and diffed into a Changeset, in the order they are read
# (the index reads the layout's record key, compaction its table type). A new
# setting is a class and an entry here.
COMPONENTS: tuple[type[LakeSetting], ...] = (
    TableLayout,
    IndexConfig,
    CompactionConfig,
    CleaningConfig,
    FileSizingConfig,
)
# Every typed setting; the hoodie.* keys each one emits are its own, so
# hudi_options cannot override them and dbt-spark's options map onto them.
# (The write operation is set per write, from the strategy: not a setting
# of the table.)
SETTINGS: tuple[type[LakeSetting], ...] = (*COMPONENTS, WriteOperation)

Component = TypeVar("Component", bound=LakeSetting)


class _Named(Protocol):
    name: str


_Column = TypeVar("_Column", bound=_Named)


def owned_keys() -> dict[str, type[LakeSetting]]:
    """Each hoodie.* key a typed setting emits (or Hudi reads under another name), and its owner."""
    return {key: setting for setting in SETTINGS for key in setting.emitted_keys()}


@dataclass(frozen=True)
class HudiTableConfig(KeyedTable):
    # The file_format it is the config of (as MergeTableConfig.format).
    format: ClassVar[str] = "hudi"

    model: str
    # One of each COMPONENTS, in its order (defaults where not given).
    components: tuple[LakeSetting, ...] = ()
    hudi_options: dict[str, str] = field(default_factory=dict)
    delete_condition: str | None = None
    # Hudi CREATE TABLE options no typed config covers (payloadClass, ...), from `options`.
    extra_table_options: dict[str, str] = field(default_factory=dict)
    # Plain table properties from `tblproperties` (Hudi-named ones are folded into the above).
    user_properties: dict[str, str] = field(default_factory=dict)
    # What the model should be told (e.g. a misspelt option that was honoured).
    warnings: tuple[str, ...] = ()
    # The adapter's write defaults, with the target's choices (write_defaults.for_target).
    defaults: dict[str, str] = field(default_factory=lambda: dict(WRITE_DEFAULTS))

    @classmethod
    def from_model_config(
        cls,
        model: str,
        model_config: Mapping[str, Any],
        defaults: Mapping[str, str] = WRITE_DEFAULTS,
    ) -> HudiTableConfig:
        # dbt-spark's `options` first: mapped onto the typed configs below, so
        # they get the same validation as if written there.
        options = fold_options(model, model_config, owned_keys())
        config = options.config
        for spark_bucketing in ("clustered_by", "buckets"):
            if config.get(spark_bucketing) is not None:
                raise LakeConfigError(
                    model,
                    spark_bucketing,
                    config[spark_bucketing],
                    "Hudi tables are not bucketed by Spark; Hudi's bucket index does that job: "
                    "set index: {type: bucket, buckets: N} with a unique_key.",
                )
        parsed: dict[type[LakeSetting], LakeSetting] = {}
        for component in COMPONENTS:
            parsed[component] = component.from_model_config(model, config, parsed)
        delete_condition = config.get("delete_condition")
        if delete_condition is not None and (
            not isinstance(delete_condition, str) or not delete_condition.strip()
        ):
            raise LakeConfigError(
                model, "delete_condition", delete_condition, "Expected a SQL boolean expression."
            )
        return cls(
            model=model,
            components=tuple(parsed.values()),
            hudi_options=_parse_hudi_options(model, config.get("hudi_options")),
            delete_condition=delete_condition.strip() if delete_condition else None,
            extra_table_options=options.table_options,
            user_properties=options.table_properties,
            warnings=tuple(options.warnings),
            defaults=dict(defaults),
        )

    def component(self, kind: type[Component]) -> Component:
        """The model's setting of this kind (the default one if not read)."""
        found = next((c for c in self.components if type(c) is kind), None)
        return found if isinstance(found, kind) else kind()

    @property
    def layout(self) -> TableLayout:
        return self.component(TableLayout)

    @property
    def index(self) -> IndexConfig:
        return self.component(IndexConfig)

    @property
    def compaction(self) -> CompactionConfig:
        return self.component(CompactionConfig)

    @property
    def cleaning(self) -> CleaningConfig:
        return self.component(CleaningConfig)

    # --- checks that need more than the config itself -------------------------

    def resolve_strategy(self, name: str) -> str:
        """The strategy a write runs: `name`, checked (check_strategy), or the
        one it runs as without a unique_key (a merge with no key appends)."""
        self.check_strategy(name)
        without_key = self.strategy(name).without_key
        return without_key if without_key and not self.record_key else name

    def check_strategy(self, name: str) -> None:
        """Refuse a strategy this model's keys and settings do not allow."""
        strategy = self.checked_strategy(name, key_is="the Hudi record key")
        if self.delete_condition and not strategy.deletes:
            allowed = [s.name for s in strategies.STRATEGIES.values() if s.deletes]
            raise LakeConfigError(
                self.model,
                "delete_condition",
                self.delete_condition,
                f"Deletes need incremental_strategy {' or '.join(map(repr, allowed))}, "
                f"not '{name}'.",
            )
        if self.delete_condition and not self.record_key:
            raise LakeConfigError(
                self.model,
                "delete_condition",
                self.delete_condition,
                f"Deletes find their records by unique_key, and incremental_strategy '{name}' "
                "has none: set unique_key, or remove delete_condition.",
            )
        if self.table_type == "mor" and self.precombine_key and not strategy.mor_with_precombine:
            raise LakeConfigError(
                self.model,
                "precombine_key",
                self.precombine_key,
                f"incremental_strategy '{name}' on a merge-on-read table cannot use a "
                "precombine_key: Hudi 1.2 brings a deleted record back when a later write of its "
                "key has a smaller precombine value, so a batch could not replace its window "
                "exactly. Use table_type 'cow', or remove precombine_key.",
            )

    def changes(
        self, tblproperties: Mapping[str, str], partition_columns: Sequence[str] = ()
    ) -> Changeset:
        """What it takes to bring an existing table (its catalog properties and
        partition columns) to this model's settings: each component's diff,
        and the plain properties (write defaults, hudi_options, tblproperties)
        whose value on the table differs."""
        table = LiveTable(tblproperties, tuple(partition_columns))
        changes = Changeset()
        for component in self.components:
            changes |= component.diff(type(component).from_table(table))
        plain = {**self.defaults, **self.hudi_options, **self.user_properties}
        return changes | Changeset(
            alter={k: v for k, v in plain.items() if tblproperties.get(k) != v}
        )

    def check_against_table(
        self, tblproperties: Mapping[str, str], partition_columns: Sequence[str]
    ) -> None:
        """Refuse a change Hudi cannot make in place to an existing table."""
        self.changes(tblproperties, partition_columns).refuse_rebuild(self.model)

    # --- what macros render ---------------------------------------------------

    def table_properties(self) -> dict[str, str]:
        """hoodie.* settings recorded on the table, so anyone can see what applies."""
        props: dict[str, str] = dict(self.defaults)
        for component in self.components:
            props.update(component.hoodie_settings())
        props.update(self.hudi_options)
        return props

    def table_options(self) -> dict[str, str]:
        """Options of `CREATE TABLE ... USING hudi OPTIONS (...)`."""
        options = self.layout.table_options()
        options.update(self.extra_table_options)
        options.update(self.table_properties())
        return options

    def created_columns(self, columns: Sequence[_Column]) -> list[_Column]:
        """The columns of the table lakehouse_create_hudi_table makes of
        `columns`, in the table's order: Hudi puts the partition columns last,
        in the order the model outputs them (its CREATE refuses a
        partition_by in another order). A write's INSERT is by position, so
        the first write to a new table takes this order without describing
        the table it has just created."""
        partition = {name.lower() for name in self.partition_by}
        data = [c for c in columns if c.name.lower() not in partition]
        return data + [c for c in columns if c.name.lower() in partition]

    def changed_properties(self, tblproperties: Mapping[str, str]) -> dict[str, str]:
        """Mutable settings and plain properties whose value on the table differs from the model's."""
        return dict(self.changes(tblproperties).alter)

    def write_settings(
        self, strategy: str, whole_table: bool = False, first_load: bool = False
    ) -> dict[str, str]:
        """Session settings for one write: they beat table properties in Hudi, so
        a setting changed in the model applies from the very next write.
        `whole_table`: an overwrite replaces every partition (a `table`
        model's rebuild), not only those the batch writes. `first_load`: the
        first write to a table this run created, so empty."""
        settings = self.table_properties()
        settings.update(WriteOperation(strategy).hoodie_settings())
        if first_load and len(self.record_key) <= 1:
            # Nothing stored to look a key up in: Hudi's bulk insert writes
            # the batch's files without the index lookup and workload
            # profile an upsert runs first (a 2M-row table's full refresh in
            # about half the time), one row per key kept as the upsert would.
            # Not for a key of several columns: Hudi 1.2's bulk insert refuses
            # a null in any of them, which the upsert stores.
            settings[INSERT_INTO_OPERATION] = "bulk_insert"
            if self.record_key:
                settings[COMBINE_BEFORE_INSERT] = "true"
        if self.strategy(strategy).overwrites and self.record_key:
            # As the first load's upsert does: one row per key, the
            # precombine_key's largest winning.
            settings[COMBINE_BEFORE_INSERT] = "true"
        if self.strategy(strategy).overwrites and self.partition_by and not whole_table:
            # Replace only the partitions the batch writes, not the whole table.
            settings["spark.sql.sources.partitionOverwriteMode"] = "dynamic"
        return settings


def _parse_hudi_options(model: str, raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise LakeConfigError(
            model, "hudi_options", raw, "Expected a mapping of hoodie.* keys to values."
        )
    options = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not key.startswith("hoodie."):
            raise LakeConfigError(
                model,
                "hudi_options",
                key,
                "Only hoodie.* keys are passed through; use table_type, unique_key, "
                "precombine_key and partition_by for the table's type, keys and partitioning.",
            )
        owner = owned_keys().get(key)
        if owner is not None:
            raise LakeConfigError(
                model,
                "hudi_options",
                key,
                f"The `{owner.config_for(key)}` config sets it (and applies it on every write); set it there instead.",
            )
        options[key] = stringify(value)
    return options
