"""`cleaning: {policy, retain}`: which old file versions Hudi deletes after a write.

policy   keep_latest_commits (retain = commits, default 10)
         keep_latest_file_versions (retain = file slices per file group, default 3)
         keep_latest_by_hours (retain = hours, default 24)
Unset, Hudi's own defaults apply (keep_latest_commits, 10).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

from dbt.adapters.lakehouse.relation_configs.parsing import choice, positive_int, settings_block

POLICIES = {
    # policy: (Hudi's retain setting, default)
    "keep_latest_commits": ("hoodie.cleaner.commits.retained", 10),
    "keep_latest_file_versions": ("hoodie.cleaner.fileversions.retained", 3),
    "keep_latest_by_hours": ("hoodie.cleaner.hours.retained", 24),
}


@dataclass(frozen=True)
class CleaningConfig:
    policy: Optional[str] = None
    retain: Optional[int] = None

    @classmethod
    def from_model_config(cls, model: str, raw: Any) -> "CleaningConfig":
        block = settings_block(model, "cleaning", raw, ("policy", "retain"))
        if not block:
            return cls()
        policy = choice(model, "cleaning.policy", block.get("policy"), tuple(POLICIES), "keep_latest_commits")
        retain = positive_int(model, "cleaning.retain", block.get("retain"), POLICIES[policy][1])
        return cls(policy, retain)

    def hoodie_settings(self) -> Dict[str, str]:
        if self.policy is None:
            return {}
        retain_key, _ = POLICIES[self.policy]
        return {
            "hoodie.clean.automatic": "true",
            "hoodie.cleaner.policy": self.policy.upper(),
            retain_key: str(self.retain),
        }
