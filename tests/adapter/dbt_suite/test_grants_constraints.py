"""Grants and constraints: what Spark 3.5 has for Hudi tables.

Model contracts (column names and types checked before a write) are dbt's own
and hold on Hudi tables. Spark 3.5 enforces no constraint on a Hudi table: its
parser has no GRANT and no ALTER TABLE ADD CONSTRAINT, a Hudi table is a v1
table to Spark ("ALTER COLUMN with v1 tables cannot specify NOT NULL"), and a
NOT NULL in CREATE TABLE is accepted and not enforced (a null is stored).
"""

import pytest
from dbt.tests.adapter.constraints.fixtures import (
    model_schema_yml,
    my_model_wrong_name_sql,
    my_model_wrong_order_sql,
)
from dbt.tests.adapter.constraints.test_constraints import (
    BaseConstraintsRollback,
    BaseConstraintsRuntimeDdlEnforcement,
    BaseIncrementalConstraintsRollback,
    BaseModelConstraintsRuntimeEnforcement,
    BaseTableConstraintsColumnsEqual,
)
from dbt.tests.adapter.grants.test_incremental_grants import BaseIncrementalGrants
from dbt.tests.adapter.grants.test_invalid_grants import BaseInvalidGrants
from dbt.tests.adapter.grants.test_model_grants import BaseModelGrants
from dbt.tests.adapter.grants.test_seed_grants import BaseSeedGrants

NO_GRANT = "Spark 3.5 has no GRANT statement (its parser answers 'Operation not allowed: grant')"
NO_CONSTRAINTS = (
    "Spark 3.5 enforces no constraint on a Hudi table: no ALTER TABLE ADD CONSTRAINT, "
    "no NOT NULL on v1 tables, and CREATE TABLE's NOT NULL is not enforced by Hudi"
)


class TestTableConstraintsColumnsEqual(BaseTableConstraintsColumnsEqual):
    @pytest.fixture(scope="class")
    def models(self):
        # Spark has no type named `text`, and no primary key constraint.
        return {
            "my_model_wrong_order.sql": my_model_wrong_order_sql,
            "my_model_wrong_name.sql": my_model_wrong_name_sql,
            "constraints_schema.yml": model_schema_yml.replace("text", "string").replace(
                "primary key", ""
            ),
        }

    @pytest.fixture
    def string_type(self):
        return "string"

    @pytest.fixture
    def int_type(self):
        return "int"

    @pytest.fixture
    def data_types(self):
        # sql value, YAML data type, the type Spark reports for the value. Each
        # correct type is a Hudi table write: three kinds (a plain type, a
        # parametrized one, a nested one) rather than every type, which the
        # data type classes in test_utils.py write through Hudi already.
        return [
            ["'1'", "string", "string"],
            ["6.45", "decimal(3,2)", "decimal"],
            ["array('a', 'b')", "array<string>", "array<string>"],
        ]


@pytest.mark.skip(reason=NO_CONSTRAINTS)
class TestConstraintsRuntimeDdlEnforcement(BaseConstraintsRuntimeDdlEnforcement):
    pass


@pytest.mark.skip(reason=NO_CONSTRAINTS)
class TestConstraintsRollback(BaseConstraintsRollback):
    pass


@pytest.mark.skip(reason=NO_CONSTRAINTS)
class TestIncrementalConstraintsRollback(BaseIncrementalConstraintsRollback):
    pass


@pytest.mark.skip(reason=NO_CONSTRAINTS)
class TestModelConstraintsRuntimeEnforcement(BaseModelConstraintsRuntimeEnforcement):
    pass


@pytest.mark.skip(reason=NO_GRANT)
class TestModelGrants(BaseModelGrants):
    pass


@pytest.mark.skip(reason=NO_GRANT)
class TestIncrementalGrants(BaseIncrementalGrants):
    pass


@pytest.mark.skip(reason=NO_GRANT)
class TestSeedGrants(BaseSeedGrants):
    pass


@pytest.mark.skip(reason=NO_GRANT)
class TestInvalidGrants(BaseInvalidGrants):
    pass
