"""Fixtures every group of tests shares (the adapter's functional tests, the
warehouse's, the toolkit's): one lake folder per test process, and a
throw-away dbt project per test. Nothing here starts Spark: the first dbt
command a test runs does."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from tests import cpu_by_test
from tests.dbt_harness import DbtProject

# Every JVM the tests start (the embedded session, the child runs the crash
# tests kill, the servers) compiles with the C1 compiler only: most of them
# live for seconds to minutes on small data, where C2's compiling costs more
# CPU than its faster code gives back, and the suite keeps both cores busy.
# A test that starts child JVMs took 22% less (test_two_runs_on_one_lake.py:
# 40 against 31 s), and one JVM that ran dbt's adapter classes for five
# minutes, 13% less (297 against 341 CPU-seconds, docs/development.md).
# Set before any worker starts a JVM; the JVMs print "Picked up
# JAVA_TOOL_OPTIONS" to their stderr. C1 alone reserves a
# 48 MiB code cache (240 with both compilers): a JVM that runs Spark and Hudi
# for minutes fills it, prints "CodeCache is full. Compiler has been
# disabled." and runs the rest interpreted. So the cache keeps its usual size.
os.environ.setdefault("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m")
# The suite runs dbt in-process and reads the tables through the Spark session
# dbt started there (tests/dbt_harness.py): that needs the in-process engine,
# not a warm server per lake. tests/adapter/functional/warm_start/ turns warm
# start on for the dbt processes it starts.
os.environ.setdefault("LAKEHOUSE_WARM_START", "0")

# The longest files, longest first (seconds on an idle machine, from CI's
# --durations). With `-n 3 --dist loadfile --no-loadscope-reorder` each worker
# takes the next file when it is free: starting with these, no long file is
# left for the end while the other workers sit idle (xdist's own order puts
# files with few tests, these, last). Update it when CI's slowest list moves.
LONGEST_FIRST = [
    "tests/warehouse/test_killed_warehouse.py",  # ~900
    "tests/warehouse/test_server_targets.py",  # ~650
    "tests/warehouse/test_warehouse_build.py",  # ~470
    "tests/adapter/functional/formats/test_iceberg_and_delta_tables.py",  # ~450
    "tests/warehouse/test_table_formats.py",  # ~400
    "tests/adapter/functional/crash/test_killed_writer.py",  # ~370
    "tests/warehouse/test_continuous.py",  # ~350
    "tests/adapter/functional/install/test_wheel_install.py",  # ~330
    "tests/adapter/dbt_suite/test_other_formats.py",  # ~330
    "tests/adapter/functional/targets/test_server_methods.py",  # ~250
    "tests/adapter/functional/object_store/test_s3_warehouse.py",  # ~200
    "tests/adapter/functional/targets/test_shared_catalog.py",  # ~200
    "tests/adapter/functional/targets/test_server_failures.py",  # ~200
    "tests/toolkit/test_profile_batch_run.py",  # ~190
    "tests/adapter/functional/warm_start/test_warm_cap.py",  # ~160
    "tests/toolkit/test_bench_alternatives.py",  # ~150
    "tests/adapter/functional/crash/test_killed_create.py",  # ~145
    "tests/warehouse/test_soak.py",  # ~140
    "tests/adapter/functional/warm_start/test_warm_start.py",  # ~110
    "tests/adapter/functional/docs/test_catalog.py",  # ~100
    "tests/warehouse/test_sources.py",  # ~80
]


def pytest_configure(config):
    # ADLAKE_TEST_CPU_LOG=<file>: each test's CPU seconds (tests/cpu_by_test.py).
    cpu_by_test.register(config)


def pytest_collection_modifyitems(items):
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="session", autouse=True)
def warm_servers_of_this_run(tmp_path_factory):
    """The warm servers tests start are counted in a registry of this test
    process's own (the cap would otherwise stop another worker's idle
    server between two of its commands), and none outlives the run."""
    from dbt.adapters.lakehouse.warm import registry as warm_registry
    from dbt.adapters.lakehouse.warm import server as warm_server

    os.environ[warm_registry.REGISTRY_ENV] = str(tmp_path_factory.getbasetemp() / "warm-servers")
    yield
    warm_server.stop_all(timeout=20)


@pytest.fixture(scope="session")
def lake_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lake")


@pytest.fixture
def project(request, tmp_path, lake_dir) -> DbtProject:
    # Readable and unique: parametrized names can share their first 40 characters.
    digest = hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:8]
    schema = "t_" + re.sub(r"\W+", "_", request.node.name).lower()[:40] + "_" + digest
    return DbtProject(tmp_path / "project", schema, lake_dir)
