"""Small parsers shared by the settings: each names the model and key on failure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError

# A key or partition column is written into the write's SQL as a bare name
# (`DBT_INTERNAL_DEST.id = DBT_INTERNAL_SOURCE.id`), so it must be one.
PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def column_list(model: str, key: str, value: Any) -> tuple[str, ...]:
    """A column or list of columns, as written in dbt configs, to a tuple of names.
    None, an empty string and an empty list are no column (dbt reads an empty
    unique_key as none)."""
    if value is None or value == [] or (isinstance(value, str) and not value.strip()):
        return ()
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",")]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = [v.strip() for v in value]
    else:
        raise LakeConfigError(
            model, key, value, "Expected a column name or a list of column names."
        )
    if not names or any(not n for n in names):
        raise LakeConfigError(model, key, value, "Column names must not be empty.")
    for name in names:
        if not PLAIN_NAME.fullmatch(name):
            raise LakeConfigError(
                model,
                key,
                name,
                "A key or partition column must be a plain column name: letters, digits and "
                "underscores, not starting with a digit (rename the column in the model's SELECT).",
            )
    return tuple(names)


def settings_block(
    model: str, key: str, value: Any, allowed_keys: Iterable[str]
) -> Mapping[str, Any]:
    """A nested config such as `compaction: {...}`: a mapping with only known keys."""
    if value is None:
        return {}
    allowed = sorted(allowed_keys)
    if not isinstance(value, Mapping):
        raise LakeConfigError(
            model, key, value, f"Expected a mapping with keys: {', '.join(allowed)}."
        )
    for inner in value:
        if inner not in allowed:
            raise LakeConfigError(
                model,
                f"{key}.{inner}",
                value[inner],
                f"Unknown key; allowed keys: {', '.join(allowed)}.",
            )
    return value


# The default's type is the result's when the value is missing: a str default
# gives a str, None gives str | None.
_StrDefault = TypeVar("_StrDefault", str, None)
_IntDefault = TypeVar("_IntDefault", int, None)


def choice(
    model: str, key: str, value: Any, allowed: Sequence[str], default: _StrDefault
) -> str | _StrDefault:
    if value is None:
        return default
    if not isinstance(value, str) or value.lower() not in allowed:
        raise LakeConfigError(model, key, value, f"Use one of: {', '.join(allowed)}.")
    return value.lower()


def positive_int(model: str, key: str, value: Any, default: _IntDefault) -> int | _IntDefault:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise LakeConfigError(model, key, value, "Expected a whole number of at least 1.")
    number: int = value
    return number


def stringify(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
