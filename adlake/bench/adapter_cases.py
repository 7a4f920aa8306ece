"""dbt's adapter test cases in one process, as dbt-tests-adapter runs them:
one dbt project per test class, each with a lake of its own, all in one
pytest process (as notebooks and orchestrators that call dbt in-process do).

    python -m adlake.bench.adapter_cases [--runs 1] [--work DIR] [--json FILE]

The cases: dbt-tests-adapter's basic suite (materializations, singular and
generic tests, ephemeral models, incremental, empty, adapter methods,
connection validation), the same classes on each engine:

- dbt-spark: plain dbt-spark's `method: session` on a SparkSession started
  with the same Hudi bundle, extension and catalog, one Derby metastore;
- dbt-spark-hudi: the same, writing every model and seed as a Hudi table;
- lakehouse: dbt-lakehouse with the profile's three lines and nothing else
  (`lake_dir` unset: each project's lake is its own `.lake`, its catalog
  files in its folder), warm start as it defaults in a process calling dbt;
- lakehouse-parquet: the same, writing every model and seed as parquet, as
  dbt-spark does by default (dbt-spark's materializations, on dbt-lakehouse's
  session): what the session costs, apart from the table format;
- lakehouse-warm-off: the same with LAKEHOUSE_WARM_START=0;
- lakehouse-warm-on: the same with LAKEHOUSE_WARM_START=1 (the first lake's
  server started, and moved to each next lake: warm/client.py);
- lakehouse-metastore-warm-off and -warm-on: those two with `lake_catalog:
  metastore`, each lake's catalog in Hive's metastore on a Derby database of
  its own rather than files in its folder (lake/catalog.py).

Each variant is one pytest process (wall time from its start to its exit),
with its own registry of warm servers, stopped at the end; it counts the warm
servers left running before stopping them. The figures are the median of
--runs. It prints them and asserts no time; it exits non-zero when a case
fails on one engine and passes on the other.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.warm import registry as warm_registry

CASES = """
from dbt.tests.adapter.basic.test_adapter_methods import BaseAdapterMethod
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_empty import BaseEmpty
from dbt.tests.adapter.basic.test_ephemeral import BaseEphemeral
from dbt.tests.adapter.basic.test_generic_tests import BaseGenericTests
from dbt.tests.adapter.basic.test_incremental import BaseIncremental
from dbt.tests.adapter.basic.test_singular_tests import BaseSingularTests
from dbt.tests.adapter.basic.test_singular_tests_ephemeral import BaseSingularTestsEphemeral
from dbt.tests.adapter.basic.test_validate_connection import BaseValidateConnection
from dbt.tests.adapter.empty.test_empty import BaseTestEmpty


class TestSimpleMaterializations(BaseSimpleMaterializations):
    pass


class TestSingularTests(BaseSingularTests):
    pass


class TestSingularTestsEphemeral(BaseSingularTestsEphemeral):
    pass


class TestEmpty(BaseEmpty):
    pass


class TestEmptyFlag(BaseTestEmpty):
    pass


class TestEphemeral(BaseEphemeral):
    pass


class TestIncremental(BaseIncremental):
    pass


class TestGenericTests(BaseGenericTests):
    pass


class TestAdapterMethods(BaseAdapterMethod):
    pass


class TestValidateConnection(BaseValidateConnection):
    pass
"""

LAKEHOUSE_CONFTEST = """
import pytest
from dbt.tests.fixtures.project import *  # noqa: F401,F403


@pytest.fixture(scope="class")
def dbt_profile_target():
    return {"type": "lakehouse", "method": "session", "hudi_jar": HUDI_JAR}
"""

# The same with each project's lake keeping its catalog in Hive's metastore.
LAKEHOUSE_METASTORE_CONFTEST = LAKEHOUSE_CONFTEST.replace(
    '"hudi_jar": HUDI_JAR}', '"hudi_jar": HUDI_JAR, "lake_catalog": "metastore"}'
)

# dbt-spark's session method takes the process's SparkSession: this one,
# started as Hudi's docs say, with its metastore in the work folder.
DBT_SPARK_CONFTEST = """
import pytest
from pyspark.sql import SparkSession
from dbt.tests.fixtures.project import *  # noqa: F401,F403

SparkSession.builder.master("local[2]").config("spark.jars", HUDI_JAR).config(
    "spark.serializer", "org.apache.spark.serializer.KryoSerializer"
).config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension").config(
    "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog"
).config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar").config(
    "spark.driver.memory", "4g"
).config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false").config(
    "spark.sql.warehouse.dir", WORK + "/warehouse"
).config(
    "spark.hadoop.javax.jdo.option.ConnectionURL",
    "jdbc:derby:;databaseName=" + WORK + "/metastore_db;create=true",
).enableHiveSupport().getOrCreate()


@pytest.fixture(scope="class")
def dbt_profile_target():
    return {"type": "spark", "method": "session", "host": "NA", "schema": "dbt"}
"""


def with_file_format(conftest: str, file_format: str) -> str:
    """`conftest` with `+file_format: <file_format>` on every model and seed,
    added to the project file each case writes (a `project_config_update` of
    the conftest's own would be replaced by each case class's, and most
    classes have one)."""
    return (
        conftest
        + f"""
import yaml
from dbt.tests.util import write_file


@pytest.fixture(scope="class")
def dbt_project_yml(project_root, project_config_update):
    config = {{"name": "test", "profile": "test", "flags": {{"send_anonymous_usage_stats": False}}}}
    update = project_config_update or {{}}
    config.update(yaml.safe_load(update) if isinstance(update, str) else update)
    for resource in ("models", "seeds"):
        config[resource] = {{**(config.get(resource) or {{}}), "+file_format": {file_format!r}}}
    write_file(yaml.safe_dump(config), project_root, "dbt_project.yml")
    return config
"""
    )


VARIANTS = {
    "dbt-spark": (DBT_SPARK_CONFTEST, {}),
    "dbt-spark-hudi": (with_file_format(DBT_SPARK_CONFTEST, "hudi"), {}),
    "lakehouse": (LAKEHOUSE_CONFTEST, {}),
    "lakehouse-parquet": (with_file_format(LAKEHOUSE_CONFTEST, "parquet"), {}),
    "lakehouse-warm-off": (LAKEHOUSE_CONFTEST, {"LAKEHOUSE_WARM_START": "0"}),
    "lakehouse-warm-on": (LAKEHOUSE_CONFTEST, {"LAKEHOUSE_WARM_START": "1"}),
    "lakehouse-metastore-warm-off": (LAKEHOUSE_METASTORE_CONFTEST, {"LAKEHOUSE_WARM_START": "0"}),
    "lakehouse-metastore-warm-on": (LAKEHOUSE_METASTORE_CONFTEST, {"LAKEHOUSE_WARM_START": "1"}),
}


def run_variant(name: str, work: Path) -> dict:
    """One pytest process of the cases on one engine: its wall time, each
    case's outcome and time, and the warm servers it left running."""
    conftest, env_overrides = VARIANTS[name]
    folder = work / name
    folder.mkdir(parents=True)
    jar = str(hudi_bundle.resolve(None))
    header = f"HUDI_JAR = {jar!r}\nWORK = {str(folder)!r}\n"
    (folder / "conftest.py").write_text(header + conftest)
    (folder / "test_cases.py").write_text(CASES)
    registry = folder / "warm-registry"
    env = {k: v for k, v in os.environ.items() if k != "LAKEHOUSE_WARM_START"}
    env |= {"LAKEHOUSE_WARM_REGISTRY": str(registry), **env_overrides}
    report = folder / "report.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [f"--junitxml={report}", f"--basetemp={folder / 'tmp'}", "-o", "addopts="]
    command += ["--rootdir", str(folder), str(folder / "test_cases.py")]
    started = time.perf_counter()
    subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    left = _warm_servers(registry, env)
    cases = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        outcome = "failed" if failed else "skipped" if skipped else "passed"
        key = f"{case.get('classname', '').rpartition('.')[2]}::{case.get('name')}"
        cases[key] = {"outcome": outcome, "seconds": float(case.get("time", 0))}
    return {"seconds": seconds, "cases": cases, "warm_servers_left": left}


def _warm_servers(registry: Path, env: dict[str, str]) -> int:
    """How many warm servers the variant left running; stops them."""
    os.environ["LAKEHOUSE_WARM_REGISTRY"] = str(registry)
    try:
        left = len(warm_registry.running()) if registry.exists() else 0
    finally:
        os.environ.pop("LAKEHOUSE_WARM_REGISTRY", None)
    command = [sys.executable, "-m", "dbt.adapters.lakehouse.warm.server", "stop", "--all"]
    subprocess.run(command, env=env, capture_output=True)
    return left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="adapter-cases-"))
    names = args.variants.split(",")
    runs: dict[str, list[dict]] = {name: [] for name in names}
    for run in range(args.runs):
        for name in names:
            runs[name].append(run_variant(name, work / f"run{run}"))
            print(f"{name}: {runs[name][-1]['seconds']:.1f} s", flush=True)
    baseline = runs.get("dbt-spark", [{}])[0].get("cases", {})
    figures: dict = {"command": "python -m adlake.bench.adapter_cases", "variants": {}}
    mismatched = []
    for name in names:
        outcomes = runs[name][0]["cases"]
        passed = sorted(case for case, result in outcomes.items() if result["outcome"] == "passed")
        if baseline and name.startswith("lakehouse"):
            both = {c for c in baseline if baseline[c]["outcome"] == "passed"}
            mismatched += [f"{name} {case}" for case in sorted(both - set(passed))]
        figures["variants"][name] = {
            "seconds": statistics.median(r["seconds"] for r in runs[name]),
            "passed": len(passed),
            "cases": len(outcomes),
            "warm_servers_left": max(r["warm_servers_left"] for r in runs[name]),
            "case_seconds": {c: r["seconds"] for c, r in outcomes.items()},
        }
    print(f"\n{'variant':<20} {'seconds':>8} {'passed':>7} {'servers left':>13}")
    for name, figure in figures["variants"].items():
        print(
            f"{name:<20} {figure['seconds']:>8.1f} {figure['passed']:>3}/{figure['cases']:<3} "
            f"{figure['warm_servers_left']:>13}"
        )
    if "dbt-spark" in figures["variants"]:
        spark = figures["variants"]["dbt-spark"]["seconds"]
        for name, figure in figures["variants"].items():
            print(f"{name}: {figure['seconds'] / spark:.2f}x dbt-spark")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    for line in mismatched:
        print(f"passes on dbt-spark, not here: {line}")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
