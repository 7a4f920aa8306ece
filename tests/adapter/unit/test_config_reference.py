"""adapter/README.md is the one reference of the adapter's configs: every
model config the adapter declares (LakehouseConfig, dbt-spark's included) has
a row in its "Model configs" table, and every profile field
(LakehouseCredentials) one in its "Profile" table. A config added to the code
without its row fails here."""

import dataclasses
import re
from pathlib import Path

from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.impl import LakehouseConfig

README = Path(__file__).resolve().parents[3] / "adapter" / "README.md"


def section(title: str) -> str:
    """The text of a `## title` section, up to the next `## ` heading."""
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def documented(table_section: str) -> set[str]:
    """Names in backquotes in the first cell of each table row."""
    names = set()
    for line in table_section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return names


def declared(config_class) -> set[str]:
    return {f.name for f in dataclasses.fields(config_class) if not f.name.startswith("_")}


def test_every_model_config_has_a_row():
    missing = declared(LakehouseConfig) - documented(section("Model configs"))
    missing -= documented(section("dbt-spark's configs on Hudi"))
    assert not missing, f"add a row to adapter/README.md's Model configs for: {sorted(missing)}"


def test_every_profile_field_has_a_row():
    missing = declared(LakehouseCredentials) - documented(section("Profile"))
    assert not missing, f"add a row to adapter/README.md's Profile table for: {sorted(missing)}"
