"""Which config works on which table format: one table that the config
validation reads (a config that means nothing for a model's format is an
error naming the model, the key, the format and what to use instead) and the
docs render (adapter/README.md's "Configs by table format", checked by a unit
test).

The table is the registered formats' own: each says what each config does on
it (TableFormat.configs); a config it does not list it refuses, and
TableFormat.instead says what to use. The configs are those the formats
list, in the order the first lists them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dbt.adapters.lakehouse.formats import registry
from dbt.adapters.lakehouse.formats.table_format import TableFormat
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError


@dataclass(frozen=True)
class Support:
    """One config, as the formats take it."""

    key: str

    def on(self, fmt: str) -> str | None:
        """What the config does on `fmt`; None: the format refuses it."""
        return registry.get(fmt).configs.get(self.key)

    def instead(self, fmt: str) -> str:
        """What to use on `fmt`, which refuses the config."""
        return instead(registry.get(fmt), self.key)


def configs() -> tuple[Support, ...]:
    keys: dict[str, None] = {}
    for name in registry.FORMATS:
        keys.update(dict.fromkeys(registry.get(name).configs))
    return tuple(Support(key) for key in keys)


def instead(fmt: TableFormat, key: str) -> str:
    return fmt.instead.get(key, f"file_format '{fmt.name}' does not take it.")


def _given(value: Any) -> bool:
    return value is not None and value != {} and value != [] and value != ""


def check(model: str, fmt: str, config: Mapping[str, Any]) -> None:
    """Refuse each config the model sets that `fmt` does not take."""
    for support in configs():
        value = config.get(support.key)
        if _given(value) and support.on(fmt) is None:
            raise LakeConfigError(
                model,
                support.key,
                value,
                f"It does nothing for file_format '{fmt}'. {support.instead(fmt)}",
            )


def check_strategy(model: str, fmt: str, strategy: str) -> None:
    allowed = registry.get(fmt).strategies
    if allowed is not None and strategy not in allowed:
        raise LakeConfigError(
            model,
            "incremental_strategy",
            strategy,
            f"On file_format '{fmt}' use one of: {', '.join(allowed)}.",
        )


def markdown_table() -> str:
    """The docs' table of configs by format (adapter/README.md)."""
    formats = [registry.get(name) for name in registry.FORMATS]
    lines = [
        "| config | " + " | ".join(f"`{fmt.name}`" for fmt in formats) + " |",
        "|---|" + "---|" * len(formats),
    ]
    for support in configs():
        takes = [
            fmt.configs.get(support.key) or f"refused. {instead(fmt, support.key)}"
            for fmt in formats
        ]
        lines.append(f"| `{support.key}` | " + " | ".join(takes) + " |")
    strategies: dict[str, None] = {}
    for fmt in formats:
        strategies.update(dict.fromkeys(fmt.strategies or {}))
    for name in strategies:
        cells: list[str] = []
        before: tuple[TableFormat, str] | None = None
        for fmt in formats:
            how = "yes" if fmt.strategies is None else fmt.strategies.get(name, "refused")
            # A cell the same as the one before it names that format instead.
            if before is not None and how == before[1] and how not in ("yes", "refused"):
                cells.append(f"as on {before[0].title}")
            else:
                cells.append(how)
            before = (fmt, how)
        lines.append(f"| `incremental_strategy: {name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)
