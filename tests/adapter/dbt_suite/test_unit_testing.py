"""dbt unit tests through this adapter. In the case-insensitivity class the
upstream a unit test mocks is a Hudi table, whose _hoodie_* metadata columns
must not reach the mocked input; the types class keeps dbt's view upstream (a
Hudi table per type would re-test that one path seven times)."""

import pytest
from dbt.tests.adapter.unit_testing.test_case_insensitivity import BaseUnitTestCaseInsensivity
from dbt.tests.adapter.unit_testing.test_invalid_input import BaseUnitTestInvalidInput
from dbt.tests.adapter.unit_testing.test_types import BaseUnitTestingTypes

UPSTREAM_AS_HUDI_TABLE = {"models": {"test": {"my_upstream_model": {"+materialized": "table"}}}}


class TestUnitTestingTypes(BaseUnitTestingTypes):
    # Spark's literals for the types (dbt-spark's list); Spark has no json type.
    @pytest.fixture
    def data_types(self):
        # sql value, yaml value
        return [
            ["1", "1"],
            ["2.0", "2.0"],
            ["'12345'", "12345"],
            ["'string'", "string"],
            ["true", "true"],
            ["date '2011-11-11'", "2011-11-11"],
            ["timestamp '2013-11-03 00:00:00-0'", "2013-11-03 00:00:00-0"],
        ]


class TestUnitTestCaseInsensitivity(BaseUnitTestCaseInsensivity):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return UPSTREAM_AS_HUDI_TABLE


class TestUnitTestInvalidInput(BaseUnitTestInvalidInput):
    pass
