"""What tests that run dbt share: real dbt commands, in-process, on one embedded
Spark JVM with Hudi (the fixtures that use it are in tests/conftest.py).

dbt runs through its programmatic runner, so every invocation in the session
reuses the Spark session the adapter started on the first one (starting a JVM
per dbt command would cost more than the tests themselves). Each test gets its
own dbt project folder and its own schema; the lake is shared.
"""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import yaml
from dbt.adapters.factory import reset_adapters
from dbt.cli.main import dbtRunner, dbtRunnerResult

REPO = Path(__file__).resolve().parents[1]


def spark():
    """The Spark session the adapter started (tests read the tables through it)."""
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession() or SparkSession._instantiatedSession
    assert session is not None, "no dbt command has started the embedded Spark session yet"
    return session


class DbtProject:
    """A throw-away dbt project: write models, run dbt, read the tables back."""

    def __init__(
        self, root: Path, schema: str, lake_dir: Path, lake_catalog: str | None = None
    ) -> None:
        self.root = root
        self.schema = schema
        self.lake_dir = lake_dir
        (root / "models").mkdir(parents=True, exist_ok=True)
        self.write(
            "dbt_project.yml",
            yaml.safe_dump(
                {
                    "name": "lake_test",
                    "version": "1.0",
                    "config-version": 2,
                    "profile": "lake_test",
                    "model-paths": ["models"],
                    "seed-paths": ["seeds"],
                    "macro-paths": ["macros"],
                }
            ),
        )
        self.write("profiles.yml", profile_yaml("lake_test", schema, lake_dir, lake_catalog))

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    def model(self, name: str, sql: str) -> Path:
        return self.write(f"models/{name}.sql", sql)

    def dbt(self, *args: str, expect_ok: bool = True) -> dbtRunnerResult:
        return run_dbt(list(args), self.root, self.root, expect_ok=expect_ok)

    # --- reading what is on disk and in the tables ---------------------------

    def table_dir(self, table: str, schema: str | None = None) -> Path:
        return self.lake_dir / "warehouse" / f"{schema or self.schema}.db" / table

    def hoodie_properties(self, table: str) -> dict[str, str]:
        return read_properties(self.table_dir(table) / ".hoodie" / "hoodie.properties")

    def completed_instants(self, table: str) -> list[tuple]:
        return completed_instants(self.table_dir(table))

    def rows(self, query: str) -> list:
        # A fresh child session each time: a session caches the file listing of
        # the tables it has read, and dbt has written since.
        return spark().newSession().sql(query.format(schema=self.schema)).collect()

    def scalar(self, query: str):
        return self.rows(query)[0][0]


def profile_yaml(profile: str, schema: str, lake_dir: Path, lake_catalog: str | None = None) -> str:
    """A three-line profile on `lake_dir`; `lake_catalog` when the test needs
    one kind of lake catalog (lake/catalog.py), whatever the default."""
    target = {
        "type": "lakehouse",
        "method": "session",
        "schema": schema,
        "lake_dir": str(lake_dir),
        "hudi_jar": str(hudi_jar()),
        "threads": 1,
    }
    if lake_catalog is not None:
        target["lake_catalog"] = lake_catalog
    return yaml.safe_dump({profile: {"target": "local", "outputs": {"local": target}}})


def hudi_jar() -> Path:
    from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle

    return hudi_bundle.locate(cache_dir=REPO / ".cache" / "jars")


def embedded_target(lake_dir: Path) -> dict:
    """A dbt profile target on the embedded session, on a lake folder (dbt's
    adapter test classes take it as their `dbt_profile_target`)."""
    return {
        "type": "lakehouse",
        "method": "session",
        "host": "embedded",
        "lake_dir": str(lake_dir),
        "hudi_jar": str(hudi_jar()),
        "threads": 1,
    }


def run_dbt(
    args: list[str],
    project_dir: Path,
    profiles_dir: Path,
    expect_ok: bool = True,
    extra: list[str] | None = None,
) -> dbtRunnerResult:
    full = args + ["--project-dir", str(project_dir), "--profiles-dir", str(profiles_dir)]
    try:
        result = dbtRunner().invoke(full + (extra or []))
    finally:
        # dbt resets its adapter registry when a command starts, not when it
        # ends, and dbt-tests-adapter's `adapter` fixture keeps whatever adapter
        # it finds registered. Without this, a class of the adapter suite run
        # after a test whose profile pointed at a Thrift server (stopped since)
        # would open its connections to that server.
        reset_adapters()
    if expect_ok and not result.success:
        raise AssertionError(f"dbt {' '.join(args)} failed: {result.exception or failures(result)}")
    if not expect_ok:
        assert not result.success, f"dbt {' '.join(args)} was expected to fail but succeeded"
    return result


def failures(result: dbtRunnerResult) -> list[str]:
    """The messages of the nodes that did not succeed."""
    if result.result is None or not hasattr(result.result, "results"):
        return [str(result.exception)]
    return [
        f"{r.node.name}: {r.message}"
        for r in result.result.results
        if str(r.status) not in ("success", "pass")
    ]


def read_properties(path: Path) -> dict[str, str]:
    props = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            props[key] = value.replace("\\:", ":")
    return props


INSTANT = re.compile(r"^(\d+)_(\d+)\.(\w+)$")


def completed_instants(table_dir: Path) -> list[tuple]:
    """(requested time, completed time, action) of every completed instant, oldest first."""
    timeline = table_dir / ".hoodie" / "timeline"
    found = [INSTANT.match(p.name) for p in timeline.iterdir()]
    return sorted((m.group(1), m.group(2), m.group(3)) for m in found if m)


def files_under(root: Path) -> list[Path]:
    """Every file under `root`, or `root` itself if it is a file. A scan of a
    lake folder meets Spark's scratch files (lake/.spark-local), which come
    and go while a session lives and are removed as its JVM exits: a folder
    gone while the scan walks is passed over (os.walk ignores it; Path.rglob
    would raise)."""
    if root.is_file():
        return [root]
    found = (Path(folder, name) for folder, _, names in os.walk(root) for name in names)
    return [path for path in found if path.is_file()]  # not a socket, a pipe, a broken link


def bytes_unless_gone(path: Path) -> bytes:
    """A file's bytes; none for one gone since it was listed (see files_under)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""
