"""dbt-spark's `options` and `tblproperties`, as Hudi's docs and dbt-spark projects write them.

    options={'type': 'mor', 'primaryKey': 'id', 'preCombineField': 'ts',
             'hoodie.table.cdc.enabled': 'true'}

Each key that one of the typed configs owns is mapped onto that config, so it
has exactly the typed config's effect (validation, every-write settings, the
full-refresh check); the remaining Hudi options pass through to the table.
A key set both here and in its typed config must agree. A key Hudi would not
know is an error, because Hudi ignores unknown options silently (a misspelt
`precombineKey` used to mean an unordered table and older rows winning);
a common misspelling with one clear meaning is honoured with a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dbt.adapters.lakehouse.relation_configs.base import LakeSetting
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import column_list, stringify
from dbt.adapters.lakehouse.relation_configs.table_layout import (
    HOODIE_KEYS,
    OPTION_NAMES,
    TableLayout,
)

# CREATE TABLE options of Hudi that no typed config covers: they go to the
# table as written (Hudi records them in hoodie.properties at creation).
TABLE_OPTIONS = ("payloadClass", "recordMergeMode", "recordMergeStrategyId")

# Misspellings seen in published examples, each with one clear meaning.
MISSPELLINGS = {
    "precombineKey": "preCombineField",
    "preCombineKey": "preCombineField",
    "precombineField": "preCombineField",
    "orderingField": "orderingFields",
    "recordKey": "primaryKey",
    "primaryKeys": "primaryKey",
}


@dataclass
class SparkOptions:
    """What a model's `options` and `tblproperties` mean for the typed configs."""

    config: dict[str, Any]  # the model config with the Hudi settings folded in
    table_options: dict[str, str] = field(
        default_factory=dict
    )  # Hudi options no typed config covers
    table_properties: dict[str, str] = field(default_factory=dict)  # plain (non-Hudi) tblproperties
    warnings: list[str] = field(default_factory=list)


def fold_options(
    model: str, config: Mapping[str, Any], owners: Mapping[str, type[LakeSetting]]
) -> SparkOptions:
    """The model config with its `options` and `tblproperties` mapped onto the
    typed configs (Hudi reads both the same way; Hudi's docs write the layout
    in either). `owners`: each owned hoodie.* key and the setting that owns it.
    An unknown key is an error in `options`, a plain table property in `tblproperties`."""
    result = SparkOptions(dict(config))
    hudi: dict[str, tuple[str, str]] = {}  # canonical name: (where it was written, value)
    for source in ("options", "tblproperties"):
        raw = config.get(source)
        if raw is None:
            continue
        if not isinstance(raw, Mapping):
            raise LakeConfigError(model, source, raw, "Expected a mapping of names to values.")
        for key, value in raw.items():
            name = _canonical_name(model, source, key, result.warnings)
            if name is None:
                result.table_properties[str(key)] = stringify(value)
                continue
            written = f"{source}.{key}"
            if name in hudi and hudi[name][1] != stringify(value):
                raise LakeConfigError(
                    model,
                    written,
                    value,
                    f"It disagrees with {hudi[name][0]} = {hudi[name][1]!r}. Set it in one place.",
                )
            hudi[name] = (written, stringify(value))

    by_setting: dict[type[LakeSetting], dict[str, str]] = {}
    passthrough: dict[str, str] = {}
    for name, (_, value) in hudi.items():
        if name in OPTION_NAMES:
            by_setting.setdefault(TableLayout, {})[name] = value
        elif name in owners:
            by_setting.setdefault(owners[name], {})[name] = value
        elif name.startswith("hoodie."):
            passthrough[name] = value
        else:
            result.table_options[name] = value
    written_as = {name: where for name, (where, _) in hudi.items()}
    for setting, settings in by_setting.items():
        block = setting.block_from_hoodie(model, settings, written_as)
        if setting is TableLayout:
            for config_key, value in block.items():
                _fold_value(
                    model,
                    result.config,
                    config_key,
                    value,
                    written_as[_option_key(settings, config_key)],
                )
        else:
            _fold_block(
                model, result.config, setting.CONFIG_KEY, block, [written_as[k] for k in settings]
            )
    if passthrough:
        for name, value in passthrough.items():
            _fold_block(model, result.config, "hudi_options", {name: value}, [written_as[name]])
    return result


def _canonical_name(model: str, source: str, key: Any, warnings: list[str]) -> str | None:
    """The Hudi name `key` stands for; None for a plain table property."""
    if not isinstance(key, str) or not key:
        raise LakeConfigError(model, source, key, "Names are strings.")
    if key in OPTION_NAMES or key in TABLE_OPTIONS or key.startswith("hoodie."):
        return key
    # A known misspelling, or a key that differs from an option only in case.
    known = {name.lower(): name for name in (*OPTION_NAMES, *TABLE_OPTIONS)}
    known.update({wrong.lower(): right for wrong, right in MISSPELLINGS.items()})
    meant = known.get(key.lower())
    if meant is None and source == "tblproperties":
        return None
    if meant is None:
        accepted = ", ".join((*OPTION_NAMES, *TABLE_OPTIONS))
        raise LakeConfigError(
            model,
            "options",
            key,
            f"It is not a Hudi option, and Hudi would ignore it silently. Accepted keys: {accepted}, "
            "or any hoodie.* key.",
        )
    warnings.append(
        f"Model '{model}': {source} key '{key}' is not a Hudi option (Hudi would ignore it); "
        f"it was taken as '{meant}'. Write '{meant}' (or the typed config "
        f"`{OPTION_NAMES.get(meant, meant)}`) to silence this warning."
    )
    return meant


def _option_key(settings: Mapping[str, str], config_key: str) -> str:
    names = {**OPTION_NAMES, **HOODIE_KEYS}
    return next(k for k in settings if names[k] == config_key)


def _fold_value(
    model: str, merged: dict[str, Any], config_key: str, value: Any, written: str
) -> None:
    existing = merged.get(config_key)
    if existing is not None and _normal(model, config_key, existing) != _normal(
        model, config_key, value
    ):
        raise LakeConfigError(
            model,
            written,
            value,
            f"It disagrees with {config_key} = {existing!r}. Set it in one place (prefer {config_key}).",
        )
    if existing is None:
        merged[config_key] = value


def _fold_block(
    model: str,
    merged: dict[str, Any],
    config_key: str,
    block: Mapping[str, Any],
    written: list[str],
) -> None:
    existing = dict(merged.get(config_key) or {})
    if not isinstance(merged.get(config_key) or {}, Mapping):
        return  # the typed config's own parser reports a non-mapping value
    for inner, value in block.items():
        if inner in existing and stringify(existing[inner]).lower() != stringify(value).lower():
            raise LakeConfigError(
                model,
                ", ".join(written),
                value,
                f"It disagrees with {config_key}.{inner} = {existing[inner]!r}. Set it in one place "
                f"(prefer {config_key}).",
            )
        existing[inner] = value
    merged[config_key] = existing


def _normal(model: str, config_key: str, value: Any) -> tuple[str, ...]:
    """A config value in a form where equal meanings compare equal."""
    if config_key in ("unique_key", "partition_by"):
        return tuple(c.lower() for c in column_list(model, config_key, value))
    return (str(value).strip().lower(),)
