"""The adapter as a user gets it: its wheel, pip-installed into a fresh virtualenv.

Nothing of this repository is used on dbt's side after the wheel is built: pip
resolves dbt-core, dbt-spark, pyspark and the extras' packages from PyPI, the
project lives in a temporary folder, dbt runs as that virtualenv's CLI (one
JVM per command, as for a user), the profile holds only type, method, schema
and lake_dir, and the adapter finds or downloads the Hudi bundle by itself.
The bundle lands in the per-user cache (~/.cache/dbt-lakehouse/jars) unless
Maven already has it in ~/.m2, so only the first run on a machine downloads
it; pip's own cache does the same for the packages.

One virtualenv, installed with both extras (`[thrift,connect]`), serves every
method: the embedded session builds a project, and `dbt debug` passes against
a Spark Thrift server and a Spark Connect server. Those servers are the
repository's own (adlake.servers.spark_server, on 127.0.0.1), one at a time,
each started once for the module and stopped by its process id.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from adlake.servers import spark_server
from dbt.adapters.lakehouse.credentials import WARM_START_ENV_VAR
from dbt.adapters.lakehouse.warm import state as warm_state

REPO = Path(__file__).resolve().parents[4]
BUNDLE_JAR = "hudi-spark3.5-bundle_2.12-1.2.0.jar"

ORDERS_CSV = """order_id,customer,amount
1,ann,10
2,bob,20
3,cid,30
"""

# Batch 1 loads the seed; batch 2 re-sends order 2 with ten times its amount
# and adds order 4, so only an upsert by order_id gives 4 rows summing to 280
# (an append would give 5 rows and 450, an overwrite 2 rows and 240).
ORDERS_INCR_SQL = """
{{ config(materialized='incremental', unique_key='order_id') }}
{% if var('batch', 1) == 1 %}
select order_id, customer, amount from {{ ref('orders') }}
{% else %}
select order_id, customer, amount * 10 as amount from {{ ref('orders') }} where order_id = 2
union all
select 4 as order_id, 'dan' as customer, 40 as amount
{% endif %}
"""

CUSTOMER_TOTALS_SQL = """
{{ config(materialized='table') }}
select customer, sum(amount) as total from {{ ref('orders_incr') }} group by customer
"""

# No file_format: a snapshot is a Hudi table by default, like every model.
ORDERS_SNAPSHOT_SQL = """
{% snapshot orders_snapshot %}
{{ config(target_schema=target.schema, unique_key='order_id', strategy='check',
          check_cols=['amount']) }}
select order_id, customer, amount from {{ ref('orders_incr') }}
{% endsnapshot %}
"""

SCHEMA_YML = {
    "version": 2,
    "models": [
        {"name": "orders_incr", "columns": [{"name": "order_id", "data_tests": ["not_null"]}]}
    ],
}

# What the second build must leave, checked inside that build by a singular
# test (a failing test fails the build; no extra dbt command, so no extra JVM).
# The snapshot ran in both builds: order 2 has its old and its new version.
READBACK_TEST_SQL = """
{% if var('batch', 1) == 2 %}
with found as (
  select
    (select count(*) from {{ ref('orders_incr') }}) as incr_rows,
    (select sum(amount) from {{ ref('orders_incr') }}) as incr_sum,
    (select count(*) from {{ ref('customer_totals') }}) as customers,
    (select total from {{ ref('customer_totals') }} where customer = 'bob') as bob_total,
    (select count(*) from {{ ref('orders_snapshot') }} where dbt_valid_to is null) as snapshot_current,
    (select count(*) from {{ ref('orders_snapshot') }} where order_id = 2) as order_2_versions,
    (select amount from {{ ref('orders_snapshot') }} where order_id = 2 and dbt_valid_to is null) as order_2_now
)
select * from found
where not (incr_rows = 4 and incr_sum = 280 and customers = 4 and bob_total = 200
           and snapshot_current = 4 and order_2_versions = 2 and order_2_now = 200)
{% else %}
select 1 as nothing where false
{% endif %}
"""


# --- the installation ---------------------------------------------------------------


def run(cmd: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kwargs
    )


def user_env(venv: Path) -> dict[str, str]:
    """The caller's environment minus anything that would point dbt or Spark at this repository."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DBT_", "SPARK_", "PYSPARK_"))
        and key not in ("LAKEHOUSE_HUDI_JAR", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    }
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The adapter's wheel, built from a copy so no build/ folder lands in the repository."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "adapter"
    shutil.copytree(
        REPO / "adapter",
        source,
        ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"),
    )
    result = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", source, "-w", work / "dist"], 600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (built,) = (work / "dist").glob("dbt_lakehouse-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> Path:
    """A fresh virtualenv with only the wheel installed, with both extras (one
    install for every method: a virtualenv is about 1 GB and minutes of pip);
    pip resolves the rest from PyPI."""
    path = tmp_path_factory.mktemp("venv")
    result = run([sys.executable, "-m", "venv", path], 300)
    assert result.returncode == 0, result.stderr
    # --no-compile: byte-compiling all of pyspark costs time and proves nothing here.
    result = run(
        [
            path / "bin" / "python",
            "-m",
            "pip",
            "install",
            "--no-compile",
            f"{wheel}[thrift,connect]",
        ],
        1800,
        env=user_env(path),
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    yield path
    shutil.rmtree(path, ignore_errors=True)  # ~1 GB, of no use once the module is done


def test_the_wheel_carries_the_files_the_session_starts_with(wheel):
    """Files the embedded session puts on the JVM's command line or class
    path, or compiles: a missing one would not fail, the session would just
    run without it. Each as its module names it."""
    import dbt.adapters.lakehouse as package
    from dbt.adapters.lakehouse.lake import catalog as lake_catalog
    from dbt.adapters.lakehouse.session import (
        embedded,
        format_jars,
        hadoop_conf,
        lake_switch,
        local_fs,
    )
    from dbt.adapters.lakehouse.warm import jars as warm_jars

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    root = Path(package.__file__).parent
    for path in (
        embedded.LOG4J_CONFIG,
        hadoop_conf.FOLDER / "yarn-default.xml",
        local_fs.SOURCE,
        warm_jars.GUARD_SOURCE,
        lake_catalog.SOURCE,
        format_jars.CATALOG_SOURCE,
        lake_switch.HOOK_SOURCE,
    ):
        assert path.is_file(), path
        assert f"dbt/adapters/lakehouse/{path.relative_to(root)}" in names, path


def test_pip_picks_a_spark_3_5_pyspark(venv):
    result = run(
        [venv / "bin" / "python", "-c", "import pyspark; print(pyspark.__version__)"],
        120,
        env=user_env(venv),
    )
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"3\.5\.\d+", result.stdout.strip()), result.stdout


def test_pip_picks_versions_the_connect_client_takes(venv):
    # pyspark 3.5's Connect client needs NumPy 1.x (so pyarrow up to 17) and
    # pandas before 3: the wheel's ranges, not pyspark's own extra, keep pip
    # from picking the newest of each.
    code = (
        "import numpy, pandas, pyarrow; from pyspark.sql.connect.session import SparkSession; "
        "print(numpy.__version__, pyarrow.__version__, pandas.__version__)"
    )
    result = run([venv / "bin" / "python", "-c", code], 120, env=user_env(venv))
    assert result.returncode == 0, result.stderr[-3000:]
    numpy, pyarrow, pandas = (int(v.split(".")[0]) for v in result.stdout.split())
    assert numpy == 1 and pyarrow <= 17 and pandas < 3, result.stdout


def test_the_pip_command_of_the_missing_client_error_works_without_an_index(venv):
    # The error for a client that cannot be loaded says
    # `pip install 'dbt-lakehouse[connect]'`. No index serves dbt-lakehouse:
    # pip must take the extra from the installed wheel's metadata.
    result = run(
        [venv / "bin" / "python", "-m", "pip", "install", "--dry-run", "dbt-lakehouse[connect]"],
        600,
        env=user_env(venv),
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "Would install" not in output, output[-3000:]


def test_the_wheel_cannot_be_installed_with_pyspark_4(venv, wheel, tmp_path):
    # pyspark 4.0.0 as a constraint: the same resolution question as a second
    # requirement, but pip does not first download pyspark 4's 430 MB sdist to
    # read metadata it will throw away.
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("pyspark==4.0.0\n")
    result = run(
        [venv / "bin" / "python", "-m", "pip", "install", "--dry-run", wheel, "-c", constraints],
        600,
        env=user_env(venv),
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "ResolutionImpossible" in output, output
    # The conflict is the wheel's own pin, not some other package.
    cause = re.search(r"dbt-lakehouse \S+ depends on pyspark(.*)", output)
    assert cause and "<3.6" in cause.group(1) and ">=3.5" in cause.group(1), output


# Answers after the adapter's number: the method's number in
# profile_template.yml, its fields (empty: the default), schema, threads.
INIT_ANSWERS = {
    "session": (
        "1\n\nanalytics\n2\n",
        {"method": "session", "lake_dir": ".lake", "schema": "analytics", "threads": 2},
    ),
    "connect": (
        "3\n\n\nanalytics\n1\n",
        {
            "method": "connect",
            "host": "localhost",
            "port": 15002,
            "schema": "analytics",
            "threads": 1,
        },
    ),
}


@pytest.mark.parametrize("method", sorted(INIT_ANSWERS))
def test_dbt_init_asks_for_a_lakehouse_profile(venv, tmp_path, method):
    env = user_env(venv)
    names = run(
        [
            venv / "bin" / "python",
            "-c",
            "import json; from dbt.version import _get_adapter_plugin_names as n; print(json.dumps(list(n())))",
        ],
        120,
        env=env,
    )
    # The prompt numbers the adapters in this (file-system) order.
    adapters = json.loads(names.stdout)
    assert "lakehouse" in adapters, names.stdout + names.stderr
    profiles = tmp_path / "profiles"
    answers, expected = INIT_ANSWERS[method]
    answers = f"{adapters.index('lakehouse') + 1}\n{answers}"
    result = run(
        [venv / "bin" / "dbt", "init", "demo", "--profiles-dir", profiles],
        300,
        env=env,
        cwd=tmp_path,
        input=answers,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    written = yaml.safe_load((profiles / "profiles.yml").read_text())
    assert written["demo"]["outputs"]["dev"] == {"type": "lakehouse", **expected}


# --- a user's project -----------------------------------------------------------------


class UserProject:
    def __init__(self, root: Path, venv: Path, output: dict | None = None) -> None:
        self.root = root
        self.venv = venv
        self.lake = root / "lake"
        self.schema = "shop"
        # The profile's one output: the embedded session unless a server's.
        output = output or {"method": "session", "lake_dir": str(self.lake)}
        for relative, text in {
            "dbt_project.yml": yaml.safe_dump(
                {
                    "name": "shop",
                    "version": "1.0",
                    "config-version": 2,
                    "profile": "shop",
                    "flags": {"send_anonymous_usage_stats": False, "use_colors": False},
                }
            ),
            "profiles.yml": yaml.safe_dump(
                {
                    "shop": {
                        "target": "dev",
                        "outputs": {"dev": {"type": "lakehouse", "schema": self.schema, **output}},
                    }
                }
            ),
            "seeds/orders.csv": ORDERS_CSV,
            "models/orders_incr.sql": ORDERS_INCR_SQL,
            "models/customer_totals.sql": CUSTOMER_TOTALS_SQL,
            "models/schema.yml": yaml.safe_dump(SCHEMA_YML),
            "snapshots/orders_snapshot.sql": ORDERS_SNAPSHOT_SQL,
            "tests/upserted_values.sql": READBACK_TEST_SQL,
        }.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.lstrip())

    def dbt(self, *args: str, flags: tuple = (), env: dict[str, str] | None = None) -> str:
        cmd = [
            self.venv / "bin" / "dbt",
            *flags,
            *args,
            "--project-dir",
            self.root,
            "--profiles-dir",
            self.root,
        ]
        result = run(cmd, 900, env=user_env(self.venv) | (env or {}), cwd=self.root)
        output = result.stdout + result.stderr
        assert result.returncode == 0, f"dbt {' '.join(args)} failed:\n{output[-6000:]}"
        return output

    def hoodie(self, table: str) -> Path:
        return self.lake / "warehouse" / f"{self.schema}.db" / table / ".hoodie"

    def properties(self, table: str) -> dict[str, str]:
        lines = (self.hoodie(table) / "hoodie.properties").read_text().splitlines()
        return dict(
            line.split("=", 1) for line in lines if "=" in line and not line.startswith("#")
        )

    def completed_writes(self, table: str) -> list[str]:
        """Completed commit instants on the table's timeline (Hudi 1.x: <requested>_<completed>.<action>)."""
        return sorted(
            p.name
            for p in (self.hoodie(table) / "timeline").iterdir()
            if re.fullmatch(r"\d+_\d+\.(commit|deltacommit)", p.name)
        )

    def bundle_used(self) -> Path:
        """The jar the adapter put on spark.jars, from its debug line in dbt.log."""
        log = (self.root / "logs" / "dbt.log").read_text()
        found = re.findall(r"Hudi bundle (\S+\.jar)", log)
        assert found, "no 'Hudi bundle' line in dbt.log"
        return Path(found[-1])


def per_user_jar_folders() -> list[Path]:
    """Where the adapter keeps or finds a bundle for this user (see hudi_bundle)."""
    cache = (
        os.environ.get("LAKEHOUSE_JAR_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        / "dbt-lakehouse"
        / "jars"
    )
    return [Path(cache), Path.home() / ".m2" / "repository"]


def test_a_project_of_its_own_builds_on_hudi_with_the_installed_wheel(venv, tmp_path):
    project = UserProject(tmp_path / "shop", venv)

    out = project.dbt("debug")
    assert "adapter type: lakehouse" in out and "Connection test: [OK connection ok]" in out, out
    # The adapter found or fetched the bundle itself, outside this repository.
    jar = project.bundle_used()
    assert jar.name == BUNDLE_JAR and jar.is_file()
    assert not jar.resolve().is_relative_to(REPO), jar
    assert any(jar.is_relative_to(folder) for folder in per_user_jar_folders()), jar

    # Each dbt command is a JVM start: seed, run, snapshot and test go in one build.
    out = project.dbt("build", "--vars", "{batch: 1}")
    assert "PASS=6 WARN=0 ERROR=0 SKIP=0" in out, out
    assert project.properties("orders_incr")["hoodie.table.recordkey.fields"] == "order_id"
    assert project.properties("orders_snapshot")["hoodie.table.recordkey.fields"] == "dbt_scd_id"
    assert len(project.completed_writes("orders_incr")) == 1
    assert project.hoodie("customer_totals").is_dir()  # the table model is a Hudi table too

    # The second build upserts, snapshots the change, and its singular test
    # checks the values (upserted_values above).
    out = project.dbt("build", "--vars", "{batch: 2}")
    assert "PASS=6 WARN=0 ERROR=0 SKIP=0" in out, out
    assert len(project.completed_writes("orders_incr")) == 2

    project.dbt("docs", "generate")
    catalog = json.loads((project.root / "target" / "catalog.json").read_text())
    columns = catalog["nodes"]["model.shop.orders_incr"]["columns"]
    assert {"order_id", "customer", "amount"} <= {name.lower() for name in columns}


def assert_debug_passed(out: str, method: str) -> None:
    assert "adapter type: lakehouse" in out and f"method: {method}" in out, out
    assert "Connection test: [OK connection ok]" in out and "All checks passed!" in out, out


def test_warm_start_runs_on_the_installed_wheel(venv, tmp_path):
    """Warm start, a user's default for `method: session` (tests/conftest.py
    turns it off for this test session), talks to the lake's server through
    Spark Connect's client: the one the wheel installs."""
    project = UserProject(tmp_path / "shop", venv)
    try:
        out = project.dbt("debug", env={WARM_START_ENV_VAR: "1"})
        assert_debug_passed(out, "session")
        state = warm_state.read_state(project.lake)
        off = re.search(r"Warm start is off for this run, [^\n]*", out)
        if state is None and off:
            # The server's jars cannot be had here (Spark Connect's server jar
            # of the pyspark pip picked is not on Maven, say): the adapter
            # ran Spark in-process as designed, and the client went unused.
            pytest.skip(off.group(0)[:400])
        assert state is not None, f"no warm server started (Spark ran in-process):\n{out}"
        stopped = run(
            [venv / "bin" / "dbt-lakehouse-server", "stop", "--lake-dir", project.lake],
            120,
            env=user_env(venv),
        )
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert warm_state.read_state(project.lake) is None
    finally:
        left = warm_state.read_state(project.lake)
        if left is not None:
            warm_state.terminate(left, timeout=20)  # by its pids


# --- the server methods ---------------------------------------------------------------


@pytest.fixture(scope="module", params=["thrift", "connect"])
def server(request, tmp_path_factory):
    """A Spark Thrift or Connect server with Hudi, from the repository's own
    tool, on 127.0.0.1. Module-scoped and parametrized: pytest stops the
    Thrift server before it starts the Connect server, so one JVM at a time."""
    kind = request.param
    folder = tmp_path_factory.mktemp(f"{kind}_server")
    port = spark_server.free_port()
    started = time.monotonic()
    try:
        pid = spark_server.start(kind, port, folder)
        # How long a start takes, for whoever budgets this test's time.
        print(f"{kind} server: pid {pid}, listening after {time.monotonic() - started:.0f} s")
        yield kind, port
    finally:
        spark_server.stop(kind, folder)  # by the pid in its folder
    assert spark_server.status(kind, folder) is None


def test_dbt_debug_passes_against_a_server(venv, server, tmp_path):
    kind, port = server
    output = {"method": kind, "host": "127.0.0.1", "port": port}
    if kind == "thrift":
        output |= {"user": "dbt", "connect_retries": 0}
    project = UserProject(tmp_path / "shop", venv, output)
    assert_debug_passed(project.dbt("debug"), kind)
