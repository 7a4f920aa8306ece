"""What every typed lake setting has in common: one protocol.

A table setting (layout, index, compaction, cleaning, file sizing) is a
component of HudiTableConfig, which lists them (COMPONENTS). Each one

- reads itself from the model's config (`from_model_config`, given the
  components read before it: compaction needs the table type);
- reads itself from the live table (`from_table`: its catalog properties and
  partition columns);
- diffs the model's against the table's into a `Changeset`: the properties
  to alter in place, or what cannot change without a full refresh.

It turns into Hudi settings (`hoodie_settings`), and can be read back from
Hudi settings written by hand (`block_from_hoodie`: dbt-spark's `options`, a
table's properties), which is how `from_table` reads most of them. The
`hoodie.*` keys a setting owns are the ones it emits, found by asking it for
its settings in each of its shapes (`examples`), plus the other names Hudi
reads for the same thing (`ALIASES`): one source, so a key it starts to emit
is owned from that moment, and `hudi_options` cannot override it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError


@dataclass(frozen=True)
class LiveTable:
    """What an existing table says of itself: its catalog properties
    (`show tblproperties`) and partition columns."""

    properties: Mapping[str, str]
    partition_columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Changeset:
    """What it takes to bring a table to its model's settings."""

    # Table properties set in place (ALTER TABLE ... SET TBLPROPERTIES).
    alter: Mapping[str, str] = field(default_factory=dict)
    # (config, on the table, in the model) for each setting Hudi cannot
    # change on an existing table: the table must be rebuilt.
    rebuild: tuple[tuple[str, Any, Any], ...] = ()

    @property
    def requires_full_refresh(self) -> bool:
        return bool(self.rebuild)

    def __or__(self, other: Changeset) -> Changeset:
        return Changeset({**self.alter, **other.alter}, self.rebuild + other.rebuild)

    def refuse_rebuild(self, model: str) -> None:
        """Raise the error that says what differs and how to rebuild."""
        if not self.rebuild:
            return
        name, _, wanted = self.rebuild[0]
        detail = "; ".join(
            f"{n}: table has {old!r}, model has {new!r}" for n, old, new in self.rebuild
        )
        raise LakeConfigError(
            model,
            name,
            wanted,
            f"It cannot change on an existing Hudi table ({detail}). "
            f"Rebuild the table with `dbt run --full-refresh --select {model}`.",
        )


# The components read so far, by class (what from_model_config may look at).
Parsed = Mapping[type["LakeSetting"], "LakeSetting"]


class LakeSetting:
    # The model config that owns this setting's Hudi keys.
    CONFIG_KEY: ClassVar[str] = ""
    # Other hoodie.* names under which Hudi reads what this setting emits.
    ALIASES: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def from_model_config(cls, model: str, config: Mapping[str, Any], parsed: Parsed) -> Self:
        """The setting as the model's config (with `options` folded in) says it."""
        raise NotImplementedError

    @classmethod
    def from_table(cls, table: LiveTable) -> Self | None:
        """The setting as the table records it; None when it records none of
        its keys, only some, or values this adapter would not write."""
        recorded = {k: v for k, v in table.properties.items() if k in cls.emitted_keys()}
        if not recorded:
            return None
        try:
            block = cls.block_from_hoodie("(the table)", recorded, {k: k for k in recorded})
            found = cls.from_model_config(
                "(the table)", {cls.CONFIG_KEY: block}, cls._context(table)
            )
        except LakeConfigError:
            return None
        # Read back only if the table records each of the settings it stands
        # for: a default filled in for one it lacks would hide the lack.
        return found if set(found.hoodie_settings()) <= set(recorded) else None

    @classmethod
    def _context(cls, table: LiveTable) -> Parsed:
        """The components a reading of `table` needs beside this one."""
        return {}

    def diff(self, existing: Self | None) -> Changeset:
        """By default a setting Hudi applies in place: its Hudi settings that
        the table records otherwise (or not at all) are altered."""
        recorded = existing.hoodie_settings() if existing is not None else {}
        return Changeset(
            alter={k: v for k, v in self.hoodie_settings().items() if recorded.get(k) != v}
        )

    @classmethod
    def examples(cls) -> Iterable[LakeSetting]:
        """One instance of each shape, together emitting every key it can."""
        raise NotImplementedError

    def hoodie_settings(self) -> dict[str, str]:
        raise NotImplementedError

    @classmethod
    def emitted_keys(cls) -> frozenset[str]:
        keys = set(cls.ALIASES)
        for example in cls.examples():
            keys.update(example.hoodie_settings())
        return frozenset(keys)

    @classmethod
    def config_for(cls, key: str) -> str:
        """The model config to use instead of this hoodie.* key."""
        return cls.CONFIG_KEY

    @classmethod
    def block_from_hoodie(
        cls, model: str, settings: Mapping[str, str], written: Mapping[str, str]
    ) -> dict[str, Any]:
        """The model-config values that these hoodie.* settings (all owned by
        this setting) mean, e.g. {'delta_commits': 3} for compaction.
        `written`: where the user wrote each key (`options.X`, `tblproperties.X`),
        the name an error gives, so it points at the line to fix."""
        raise NotImplementedError


def hoodie_bool(model: str, key: str, value: str) -> bool:
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise LakeConfigError(model, key, value, "Expected true or false.")
    return text == "true"


def hoodie_int(model: str, key: str, value: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise LakeConfigError(model, key, value, "Expected a whole number.") from None
