"""Fixtures every group of tests shares (the adapter's functional tests, the
warehouse's, the toolkit's): one lake folder per test process, and a
throw-away dbt project per test. Nothing here starts Spark: the first dbt
command a test runs does."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tests.dbt_harness import DbtProject

# The longest files, longest first (seconds on an idle machine, from CI's
# --durations). With `-n 2 --dist loadfile --no-loadscope-reorder` each worker
# takes the next file when it is free: starting with these, no long file is
# left for the end while the other worker sits idle (xdist's own order puts
# files with few tests, these, last). Update it when CI's slowest list moves.
LONGEST_FIRST = [
    "tests/warehouse/test_killed_warehouse.py",  # ~900
    "tests/warehouse/test_server_targets.py",  # ~440
    "tests/toolkit/test_profile_batch_run.py",  # ~300
    "tests/adapter/functional/crash/test_killed_writer.py",  # ~300
    "tests/adapter/functional/targets/test_server_methods.py",  # ~250
    "tests/warehouse/test_soak.py",  # ~240
    "tests/adapter/functional/targets/test_shared_catalog.py",  # ~200
    "tests/adapter/functional/targets/test_server_failures.py",  # ~200
    "tests/warehouse/test_warehouse_build.py",  # ~150
    "tests/adapter/functional/install/test_wheel_install.py",  # ~130
    "tests/warehouse/test_continuous.py",  # ~100
    "tests/warehouse/test_docs_site.py",  # ~100
    "tests/adapter/functional/docs/test_catalog.py",  # ~100
    "tests/warehouse/test_sources.py",  # ~80
]


def pytest_collection_modifyitems(items):
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="session")
def lake_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lake")


@pytest.fixture
def project(request, tmp_path, lake_dir) -> DbtProject:
    # Readable and unique: parametrized names can share their first 40 characters.
    digest = hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:8]
    schema = "t_" + re.sub(r"\W+", "_", request.node.name).lower()[:40] + "_" + digest
    return DbtProject(tmp_path / "project", schema, lake_dir)
