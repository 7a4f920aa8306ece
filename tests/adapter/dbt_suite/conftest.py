"""dbt's adapter test suite (dbt-tests-adapter) run through dbt-lakehouse.

The suite's fixtures (`project`, `unique_schema`, ...) are imported here, so
they replace this repository's own `project` fixture for the tests in this
folder only. Every class runs dbt in-process on the one embedded Spark JVM that
the rest of the functional tests share.
"""

from __future__ import annotations

import pytest
from dbt.adapters.factory import reset_adapters
from dbt.tests.fixtures.project import *  # noqa: F401,F403  (pytest finds fixtures by name)

from tests.dbt_harness import embedded_target


@pytest.fixture(scope="class")
def dbt_profile_target(lake_dir):
    return embedded_target(lake_dir)


@pytest.fixture(scope="class", autouse=True)
def no_adapter_left_registered():
    """dbt-tests-adapter's `adapter` fixture keeps whatever adapter is
    registered, and dbt only resets the registry when a command starts. A test
    in the same process that ran dbt in-process on a server target (the
    warehouse runner does) would leave that adapter, and the class would open
    its connections to a server that has stopped since. Autouse fixtures come
    first within their scope, so this runs before `adapter`."""
    reset_adapters()
