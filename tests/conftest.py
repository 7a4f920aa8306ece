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


@pytest.fixture(scope="session")
def lake_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lake")


@pytest.fixture
def project(request, tmp_path, lake_dir) -> DbtProject:
    # Readable and unique: parametrized names can share their first 40 characters.
    digest = hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:8]
    schema = "t_" + re.sub(r"\W+", "_", request.node.name).lower()[:40] + "_" + digest
    return DbtProject(tmp_path / "project", schema, lake_dir)
