"""dbt's incremental adapter classes on Hudi tables, copy-on-write and merge-on-read."""

import re

import pytest
from dbt.tests.adapter.incremental import test_incremental_unique_id as unique_id
from dbt.tests.adapter.incremental.test_incremental_merge_exclude_columns import (
    BaseMergeExcludeColumns,
)
from dbt.tests.adapter.incremental.test_incremental_on_schema_change import (
    BaseIncrementalOnSchemaChange,
)
from dbt.tests.adapter.incremental.test_incremental_predicates import BaseIncrementalPredicates
from dbt.tests.util import run_dbt

MOR = {"models": {"+table_type": "mor"}}


def _typed_dates(sql):
    """Spark 3.5 inserts under the ANSI store-assignment policy, which casts no
    string literal into a DATE column: the class's inserts name their dates."""
    return re.sub(r"'(\d{4}-\d{2}-\d{2})'\)", r"date '\1')", sql)


# Models keyed on state alone; the seed has two NY rows.
_STATE_KEYED = ("str_unique_key", "unary_unique_key_list", "duplicated_unary_unique_key_list")
_BROOKLYN = "union all\nselect 'NY','Kings','Brooklyn','2021-04-02'\n"


class HudiUniqueKey:
    """dbt's unique_key classes, with what a Hudi record key changes.

    A Hudi record key is unique from the first load on (dbt's first run would
    insert both of the seed's NY rows under a state key): a table keyed on
    state holds one NY record. The precombine key decides which (county: New
    York over Kings; not the visit date, as Hudi 1.2 fails a copy-on-write
    update whose ordering field is a DATE), and those models are compared with
    the one-NY expectation."""

    table_type = "cow"

    @pytest.fixture(scope="class")
    def project_config_update(self):
        precombine = {name: {"+precombine_key": "county"} for name in _STATE_KEYED}
        return {"models": {"+table_type": self.table_type, "test": precombine}}

    @pytest.fixture(scope="class")
    def models(self):
        models = vars(unique_id.SubBaseIncrementalUniqueKey)["models"].__wrapped__(self)
        one_ny = models["expected"]["one_str__overwrite.sql"].replace(_BROOKLYN, "")
        assert one_ny != models["expected"]["one_str__overwrite.sql"]
        models["expected"]["one_str__overwrite.sql"] = one_ny
        return models

    @pytest.fixture(scope="class")
    def seeds(self):
        return {
            "duplicate_insert.sql": _typed_dates(unique_id.seeds__duplicate_insert_sql),
            "seed.csv": unique_id.seeds__seed_csv,
            "add_new_rows.sql": _typed_dates(unique_id.seeds__add_new_rows_sql),
        }

    def fail_to_build_inc_missing_unique_key_column(self, incremental_model_name):
        # The unique_key is the record key the Hudi table is created with, so a
        # key column the model does not output is refused on the first run.
        run_dbt(["seed", "--select", "seed", "--full-refresh"])
        result = run_dbt(
            ["run", "--select", incremental_model_name, "--full-refresh"], expect_pass=False
        )
        return result.results[0].status, result.results[0].message

    def check_state_keyed(self, project, model):
        expected_fields = self.get_expected_fields(
            relation="one_str__overwrite", seed_rows=8, opt_model_count=1
        )
        test_case_fields = self.get_test_fields(
            project,
            seed="seed",
            incremental_model=model,
            update_sql_file="duplicate_insert",
            opt_model_count=self.update_incremental_model("one_str__overwrite"),
        )
        self.check_scenario_correctness(expected_fields, test_case_fields, project)


class TestIncrementalUniqueKey(HudiUniqueKey, unique_id.BaseIncrementalUniqueKey):
    def test__unary_unique_key_list(self, project):
        self.check_state_keyed(project, "unary_unique_key_list")

    def test__duplicated_unary_unique_key_list(self, project):
        self.check_state_keyed(project, "duplicated_unary_unique_key_list")


class TestIncrementalUniqueKeyMor(HudiUniqueKey, unique_id.SubBaseIncrementalUniqueKey):
    """The keyed cases, where merge-on-read changes how updates are written."""

    table_type = "mor"
    test__one_unique_key = unique_id.BaseIncrementalUniqueKey.test__one_unique_key
    test__trinary_unique_key_list = unique_id.BaseIncrementalUniqueKey.test__trinary_unique_key_list


class TestIncrementalUniqueKeyMerge(HudiUniqueKey, unique_id.SubBaseIncrementalUniqueKey):
    """As dbt-spark runs the class for Delta, with `merge`: a model whose
    unique_key is none, an empty string or an empty list appends (the keyed
    cases are the classes above: a merge writes what an upsert does)."""

    @pytest.fixture(scope="class")
    def project_config_update(self):
        config = HudiUniqueKey.project_config_update.__wrapped__(self)
        config["models"]["+incremental_strategy"] = "merge"
        return config

    test__no_unique_keys = unique_id.BaseIncrementalUniqueKey.test__no_unique_keys
    test__empty_str_unique_key = unique_id.BaseIncrementalUniqueKey.test__empty_str_unique_key
    test__empty_unique_key_list = unique_id.BaseIncrementalUniqueKey.test__empty_unique_key_list


class TestIncrementalOnSchemaChange(BaseIncrementalOnSchemaChange):
    pass


class TestMergeExcludeColumns(BaseMergeExcludeColumns):
    pass


class TestMergeExcludeColumnsMor(BaseMergeExcludeColumns):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return MOR


# dbt's expected table keeps the stored (2, goodbye, red), which the predicate
# excludes from the merge, and inserts the batch's (2, yo, green) beside it. A
# Hudi record key is unique: two rows with id 2 cannot exist, and writing the
# batch's id 2 would replace the very row the predicate protects. So the stored
# row stays and the batch's id 2 is not written.
_expected_predicates_on_hudi_csv = """id,msg,color
1,hey,blue
2,goodbye,red
3,anyway,purple
"""


class TestIncrementalPredicates(BaseIncrementalPredicates):
    @pytest.fixture(scope="class")
    def seeds(self):
        return {
            "expected_delete_insert_incremental_predicates.csv": _expected_predicates_on_hudi_csv
        }

    # dbt-spark's form: `merge` (Spark has no delete+insert) and the predicate
    # on dbt's alias of the target.
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {
            "models": {
                "+incremental_predicates": ["DBT_INTERNAL_DEST.id != 2"],
                "+incremental_strategy": "merge",
            }
        }

    def test__incremental_predicates(self, project):
        expected_fields = self.get_expected_fields(
            relation="expected_delete_insert_incremental_predicates", seed_rows=3
        )
        test_case_fields = self.get_test_fields(
            project,
            seed="expected_delete_insert_incremental_predicates",
            incremental_model="delete_insert_incremental_predicates",
            update_sql_file=None,
        )
        self.check_scenario_correctness(expected_fields, test_case_fields, project)
