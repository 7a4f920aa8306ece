"""dbt's basic adapter classes on Hudi tables: `table` and `incremental` models
are Hudi tables here (the adapter's default file format), seeds are parquet;
the *Parquet classes write their models as parquet, as a dbt-spark project does."""

import pytest
from dbt.tests.adapter.basic import expected_catalog
from dbt.tests.adapter.basic.test_adapter_methods import BaseAdapterMethod
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_docs_generate import BaseDocsGenerate
from dbt.tests.adapter.basic.test_empty import BaseEmpty
from dbt.tests.adapter.basic.test_ephemeral import BaseEphemeral
from dbt.tests.adapter.basic.test_generic_tests import BaseGenericTests
from dbt.tests.adapter.basic.test_incremental import BaseIncremental
from dbt.tests.adapter.basic.test_singular_tests import BaseSingularTests
from dbt.tests.adapter.basic.test_singular_tests_ephemeral import BaseSingularTestsEphemeral
from dbt.tests.adapter.basic.test_validate_connection import BaseValidateConnection
from dbt.tests.adapter.empty.test_empty import BaseTestEmpty
from dbt.tests.util import AnyString


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
    # A project-wide incremental_strategy does not apply to `table` models: this
    # project's table model has no unique_key, which `merge` would need.
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"name": "ephemeral", "models": {"+incremental_strategy": "merge"}}


class TestIncremental(BaseIncremental):
    pass


# A dbt-spark project's parquet models (dbt-spark's default file format):
# dbt-spark's `table` and `incremental` materializations, on this adapter's session.
PARQUET = {"models": {"+file_format": "parquet"}, "seeds": {"+file_format": "parquet"}}


class TestSimpleMaterializationsParquet(BaseSimpleMaterializations):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"name": "base", **PARQUET}


class TestIncrementalParquet(BaseIncremental):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"name": "incremental", **PARQUET}

    def test_incremental(self, project):
        super().test_incremental(project)
        rows = project.run_sql(
            f"describe table extended {project.test_schema}.incremental", fetch="all"
        )
        assert {r[0]: r[1] for r in rows}["Provider"] == "parquet"


class TestGenericTests(BaseGenericTests):
    pass


class TestAdapterMethods(BaseAdapterMethod):
    pass


class TestValidateConnection(BaseValidateConnection):
    pass


class TestDocsGenerate(BaseDocsGenerate):
    # What Spark's catalog reports: its SQL type names (`describe table`), its
    # table types, the owner it records, no statistics.
    @pytest.fixture(scope="class")
    def expected_catalog(self, project):
        return expected_catalog.base_expected_catalog(
            project,
            role=AnyString(),
            id_type="bigint",
            text_type="string",
            time_type="timestamp",
            view_type="view",
            table_type="table",
            model_stats=expected_catalog.no_stats(),
        )
