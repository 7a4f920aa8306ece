"""`cleaning: {policy, retain, automatic}`: which old file versions Hudi deletes.

policy     keep_latest_commits (retain = commits, default 10)
           keep_latest_file_versions (retain = file slices per file group, default 3)
           keep_latest_by_hours (retain = hours, default 24)
automatic  clean after each write (default true); false leaves it to `lake_clean`
Unset, Hudi's own defaults apply (keep_latest_commits, 10, automatic).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dbt.adapters.lakehouse.relation_configs.base import (
    LakeSetting,
    Parsed,
    hoodie_bool,
    hoodie_int,
)
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError
from dbt.adapters.lakehouse.relation_configs.parsing import choice, positive_int, settings_block

AUTOMATIC = "hoodie.clean.automatic"
POLICY = "hoodie.cleaner.policy"
POLICIES = {
    # policy: (Hudi's retain setting, default)
    "keep_latest_commits": ("hoodie.cleaner.commits.retained", 10),
    "keep_latest_file_versions": ("hoodie.cleaner.fileversions.retained", 3),
    "keep_latest_by_hours": ("hoodie.cleaner.hours.retained", 24),
}
KEYS = ("policy", "retain", "automatic")


@dataclass(frozen=True)
class CleaningConfig(LakeSetting):
    CONFIG_KEY = "cleaning"

    policy: str | None = None
    retain: int | None = None
    automatic: bool = True

    @classmethod
    def from_model_config(
        cls, model: str, config: Mapping[str, Any], parsed: Parsed
    ) -> CleaningConfig:
        block = settings_block(model, "cleaning", config.get("cleaning"), KEYS)
        if not block:
            return cls()
        policy = choice(
            model, "cleaning.policy", block.get("policy"), tuple(POLICIES), "keep_latest_commits"
        )
        retain = positive_int(model, "cleaning.retain", block.get("retain"), POLICIES[policy][1])
        automatic = block.get("automatic", True)
        if not isinstance(automatic, bool):
            raise LakeConfigError(model, "cleaning.automatic", automatic, "Expected true or false.")
        return cls(policy, retain, automatic)

    @classmethod
    def examples(cls) -> Iterable[CleaningConfig]:
        return [cls(policy, default) for policy, (_, default) in POLICIES.items()]

    def hoodie_settings(self) -> dict[str, str]:
        if self.policy is None:
            return {}
        retain_key, _ = POLICIES[self.policy]
        return {
            AUTOMATIC: "true" if self.automatic else "false",
            POLICY: self.policy.upper(),
            retain_key: str(self.retain),
        }

    @classmethod
    def block_from_hoodie(
        cls, model: str, settings: Mapping[str, str], written: Mapping[str, str]
    ) -> dict[str, Any]:
        block: dict[str, Any] = {}
        if AUTOMATIC in settings:
            block["automatic"] = hoodie_bool(model, written[AUTOMATIC], settings[AUTOMATIC])
        if POLICY in settings:
            block["policy"] = str(settings[POLICY]).lower()
        retains = [(policy, key) for policy, (key, _) in POLICIES.items() if key in settings]
        if len(retains) > 1:
            raise LakeConfigError(
                model,
                written[retains[1][1]],
                settings[retains[1][1]],
                f"Set one retain setting, for the cleaning policy in use; got {', '.join(k for _, k in retains)}.",
            )
        if retains:
            policy, key = retains[0]
            block["retain"] = hoodie_int(model, written[key], settings[key])
            # A retain setting names its policy; one given with another policy would be ignored by Hudi.
            if block.setdefault("policy", policy) != policy:
                raise LakeConfigError(
                    model,
                    written[key],
                    settings[key],
                    f"It applies to cleaning policy {policy.upper()}, not {block['policy'].upper()}. "
                    "Set the policy and its retain count together with cleaning: {policy: ..., retain: N}.",
                )
        return block
