"""`dbt show` through this adapter, reading a Hudi table."""

import pytest
from dbt.tests.adapter.dbt_show.test_dbt_show import (
    BaseShowDoesNotHandleDoubleLimit,
    BaseShowLimit,
    BaseShowSqlHeader,
)


class TestShowLimit(BaseShowLimit):
    # sample_model, which the shown ephemeral models read, as a Hudi table.
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"models": {"test": {"sample_model": {"+materialized": "table"}}}}


class TestShowSqlHeader(BaseShowSqlHeader):
    pass


class TestShowDoesNotHandleDoubleLimit(BaseShowDoesNotHandleDoubleLimit):
    # The class searches the exception's repr, which pytest shortens in the
    # middle; what survives of Spark's ParseException is its end: the statement
    # with the error's position marked under the second `limit`.
    DATABASE_ERROR_MESSAGE = "limit 1\\n    --^^^"
