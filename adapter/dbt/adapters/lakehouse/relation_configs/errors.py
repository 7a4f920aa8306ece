"""The one error every lake-config mistake raises."""

from __future__ import annotations

from typing import Any

from dbt_common.exceptions import CompilationError


class LakeConfigError(CompilationError):
    """A lake-format config of a model is wrong; the message says how to fix it."""

    def __init__(self, model: str, key: str, value: Any, allowed: str) -> None:
        super().__init__(f"Model '{model}': config '{key}' = {value!r} is not valid. {allowed}")
