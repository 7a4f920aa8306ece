"""store_failures: failing rows of data tests stored as tables (Hudi, the
adapter's default format), replaced on every run."""

from dbt.tests.adapter.store_test_failures_tests.test_store_test_failures import (
    BaseStoreTestFailures,
)


class TestStoreTestFailures(BaseStoreTestFailures):
    pass
