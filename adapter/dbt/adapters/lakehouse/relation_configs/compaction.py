"""`compaction: {...}` of a merge-on-read table: when log files are merged into base files.

trigger       num_commits | time_elapsed | num_and_time | num_or_time (default num_commits)
delta_commits delta commits since the last compaction that trigger it (default 5)
delta_seconds seconds since the last compaction that trigger it (default 3600)
mode          inline (schedule and run after the write that meets the trigger),
              schedule (only schedule it; run it with the `compact` operation;
              on a table with CDC on, the next write runs a plan still
              pending: see formats/hudi/compaction_order.py),
              off (neither)                                      (default inline)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dbt.adapters.lakehouse.relation_configs.base import (
    LakeSetting,
    LiveTable,
    Parsed,
    hoodie_bool,
    hoodie_int,
)
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import choice, positive_int, settings_block
from dbt.adapters.lakehouse.relation_configs.table_layout import TableLayout

TRIGGERS = ("num_commits", "time_elapsed", "num_and_time", "num_or_time")
MODES = ("inline", "schedule", "off")
KEYS = ("trigger", "delta_commits", "delta_seconds", "mode")


INLINE = "hoodie.compact.inline"
SCHEDULE_INLINE = "hoodie.compact.schedule.inline"
TRIGGER = "hoodie.compact.inline.trigger.strategy"
DELTA_COMMITS = "hoodie.compact.inline.max.delta.commits"
DELTA_SECONDS = "hoodie.compact.inline.max.delta.seconds"


@dataclass(frozen=True)
class CompactionConfig(LakeSetting):
    CONFIG_KEY = "compaction"

    table_type: str = "cow"
    trigger: str = "num_commits"
    delta_commits: int = 5
    delta_seconds: int = 3600
    mode: str = "inline"

    @classmethod
    def from_model_config(
        cls, model: str, config: Mapping[str, Any], parsed: Parsed
    ) -> CompactionConfig:
        layout = parsed.get(TableLayout)
        table_type = layout.table_type if isinstance(layout, TableLayout) else cls.table_type
        block = settings_block(model, "compaction", config.get("compaction"), KEYS)
        if block and table_type != "mor":
            raise LakeConfigError(
                model,
                "compaction",
                dict(block),
                "Compaction applies to merge-on-read tables only: set table_type: mor, or remove compaction.",
            )
        defaults = cls()
        return cls(
            table_type=table_type,
            trigger=choice(
                model, "compaction.trigger", block.get("trigger"), TRIGGERS, defaults.trigger
            ),
            delta_commits=positive_int(
                model,
                "compaction.delta_commits",
                block.get("delta_commits"),
                defaults.delta_commits,
            ),
            delta_seconds=positive_int(
                model,
                "compaction.delta_seconds",
                block.get("delta_seconds"),
                defaults.delta_seconds,
            ),
            mode=choice(model, "compaction.mode", block.get("mode"), MODES, defaults.mode),
        )

    @classmethod
    def _context(cls, table: LiveTable) -> Parsed:
        return {TableLayout: TableLayout.from_table(table)}

    @classmethod
    def examples(cls) -> Iterable[CompactionConfig]:
        return [cls(table_type="mor")]

    def hoodie_settings(self) -> dict[str, str]:
        if self.table_type != "mor":
            return {}
        return {
            INLINE: "true" if self.mode == "inline" else "false",
            SCHEDULE_INLINE: "true" if self.mode == "schedule" else "false",
            TRIGGER: self.trigger.upper(),
            DELTA_COMMITS: str(self.delta_commits),
            DELTA_SECONDS: str(self.delta_seconds),
        }

    @classmethod
    def block_from_hoodie(
        cls, model: str, settings: Mapping[str, str], written: Mapping[str, str]
    ) -> dict[str, Any]:
        block: dict[str, Any] = {}
        if TRIGGER in settings:
            block["trigger"] = str(settings[TRIGGER]).lower()
        if DELTA_COMMITS in settings:
            block["delta_commits"] = hoodie_int(
                model, written[DELTA_COMMITS], settings[DELTA_COMMITS]
            )
        if DELTA_SECONDS in settings:
            block["delta_seconds"] = hoodie_int(
                model, written[DELTA_SECONDS], settings[DELTA_SECONDS]
            )
        inline = (
            hoodie_bool(model, written[INLINE], settings[INLINE]) if INLINE in settings else None
        )
        schedule = (
            hoodie_bool(model, written[SCHEDULE_INLINE], settings[SCHEDULE_INLINE])
            if SCHEDULE_INLINE in settings
            else None
        )
        if inline:
            block["mode"] = "inline"
        elif schedule:
            block["mode"] = "schedule"
        elif inline is False:
            # Inline compaction off and no inline scheduling asked for. (Scheduling
            # off alone says nothing about inline compaction, Hudi's default.)
            block["mode"] = "off"
        return block
