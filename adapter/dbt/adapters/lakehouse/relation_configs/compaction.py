"""`compaction: {...}` of a merge-on-read table: when log files are merged into base files.

trigger       num_commits | time_elapsed | num_and_time | num_or_time (default num_commits)
delta_commits delta commits since the last compaction that trigger it (default 5)
delta_seconds seconds since the last compaction that trigger it (default 3600)
mode          inline (schedule and run after the write that meets the trigger),
              schedule (only schedule it; run it with the `compact` operation),
              off (neither)                                      (default inline)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import choice, positive_int, settings_block

TRIGGERS = ("num_commits", "time_elapsed", "num_and_time", "num_or_time")
MODES = ("inline", "schedule", "off")
KEYS = ("trigger", "delta_commits", "delta_seconds", "mode")


@dataclass(frozen=True)
class CompactionConfig:
    configured: bool = False
    trigger: str = "num_commits"
    delta_commits: int = 5
    delta_seconds: int = 3600
    mode: str = "inline"

    @classmethod
    def from_model_config(cls, model: str, raw: Any, table_type: str) -> "CompactionConfig":
        block = settings_block(model, "compaction", raw, KEYS)
        if block and table_type != "mor":
            raise LakeConfigError(
                model, "compaction", dict(block),
                "Compaction applies to merge-on-read tables only: set table_type: mor, or remove compaction.",
            )
        defaults = cls()
        return cls(
            configured=bool(block),
            trigger=choice(model, "compaction.trigger", block.get("trigger"), TRIGGERS, defaults.trigger),
            delta_commits=positive_int(model, "compaction.delta_commits", block.get("delta_commits"), defaults.delta_commits),
            delta_seconds=positive_int(model, "compaction.delta_seconds", block.get("delta_seconds"), defaults.delta_seconds),
            mode=choice(model, "compaction.mode", block.get("mode"), MODES, defaults.mode),
        )

    def hoodie_settings(self, table_type: str) -> Dict[str, str]:
        if table_type != "mor":
            return {}
        return {
            "hoodie.compact.inline": "true" if self.mode == "inline" else "false",
            "hoodie.compact.schedule.inline": "true" if self.mode == "schedule" else "false",
            "hoodie.compact.inline.trigger.strategy": self.trigger.upper(),
            "hoodie.compact.inline.max.delta.commits": str(self.delta_commits),
            "hoodie.compact.inline.max.delta.seconds": str(self.delta_seconds),
        }
