"""The adlake project itself, run on generated data landed batch by batch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from adlake.generator import generate
from adlake.landing import land_batch
from tests.dbt_harness import REPO, completed_instants, hudi_jar, run_dbt, spark
from tests.warehouse import hudi_reference as reference


class Warehouse:
    """The repository's dbt project with its own schema, landing folder and
    generated data (small, deterministic), on the shared test lake."""

    def __init__(self, root: Path, schema: str, lake_dir: Path, **params) -> None:
        self.root, self.schema, self.lake_dir = root, schema, lake_dir
        self.generated, self.landing = root / "generated", root / "landing"
        # Without generator parameters a test lands files of its own.
        self.truth = generate(self.generated, **params)["batches"] if params else []
        profiles = root / "profiles"
        profiles.mkdir()
        # The threads of the project's own profile (profiles/profiles.yml).
        threads = yaml.safe_load((REPO / "profiles" / "profiles.yml").read_text())["adlake"][
            "outputs"
        ]["local"]["threads"]
        (profiles / "profiles.yml").write_text(
            yaml.safe_dump(
                {
                    "adlake": {
                        "target": "local",
                        "outputs": {
                            "local": {
                                "type": "lakehouse",
                                "method": "session",
                                "schema": schema,
                                "lake_dir": str(lake_dir),
                                "hudi_jar": str(hudi_jar()),
                                "threads": threads,
                            }
                        },
                    }
                }
            )
        )
        self.profiles = profiles

    def land(self, batch: int) -> None:
        land_batch(self.generated, self.landing, batch)

    def dbt(self, *args: str, expect_ok: bool = True):
        paths = ["--target-path", str(self.root / "target"), "--log-path", str(self.root / "logs")]
        return run_dbt(list(args), REPO, self.profiles, expect_ok=expect_ok, extra=paths)

    def table(self, layer: str, name: str) -> str:
        return f"{self.schema}_{layer}.{name}"

    def rows(self, query: str) -> list:
        return spark().newSession().sql(query.format(s=self.schema)).collect()

    def scalar(self, query: str):
        return self.rows(query)[0][0]

    def instants(self, layer: str, name: str) -> list[tuple]:
        return completed_instants(self.lake_dir / "warehouse" / f"{self.schema}_{layer}.db" / name)

    def operation(self, macro: str, **args) -> None:
        self.dbt("run-operation", macro, "--args", json.dumps(args))


@pytest.fixture
def warehouse_factory(tmp_path, lake_dir, monkeypatch):
    """Makes a Warehouse; the project reads its landing folder from the environment."""

    def make(schema: str, **params) -> Warehouse:
        house = Warehouse(tmp_path, schema, lake_dir, **params)
        monkeypatch.setenv("ADLAKE_LANDING_DIR", str(house.landing))
        return house

    return make


@pytest.fixture(scope="session")
def hudi_reference(tmp_path_factory):
    """The uninterrupted Hudi build the kill tests compare with, one per test
    run (hudi_reference.py)."""
    with reference.shared(reference.shared_folder(tmp_path_factory.getbasetemp())) as built:
        yield built
