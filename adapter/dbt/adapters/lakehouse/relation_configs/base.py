"""What every typed lake setting has in common.

A setting (layout, index, compaction, cleaning, write operation) is read from
the model's config (`from_model_config`), turns into Hudi settings
(`hoodie_settings`), and can be read back from Hudi settings written by hand
(`block_from_hoodie`: dbt-spark's `options`, a table's properties). The
`hoodie.*` keys a setting owns are the ones it emits, found by asking it for
its settings in each of its shapes (`examples`), plus the other names Hudi
reads for the same thing (`ALIASES`): one source, so a key it starts to emit
is owned from that moment, and `hudi_options` cannot override it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError


class LakeSetting:
    # The model config that owns this setting's Hudi keys.
    CONFIG_KEY: ClassVar[str] = ""
    # Other hoodie.* names under which Hudi reads what this setting emits.
    ALIASES: ClassVar[frozenset[str]] = frozenset()

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
