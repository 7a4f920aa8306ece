"""dbt's cross-database macros, data type macros and timestamps through this adapter.

The cross-database macro classes are run in one dbt project: each class's
seeds, models and data tests are taken from the class itself and built by one
`dbt build` (each model's data test compares the macro with its expected
column). One project instead of twenty saves about twenty project set-ups and
builds; the macros are dbt-spark's, so what they need from this adapter is the
same path every time. Classes that compare relations after their build (except,
intersect) have those comparisons run here too.
"""

import pytest
from dbt.tests.adapter.utils import test_timestamps
from dbt.tests.adapter.utils.base_utils import BaseUtils
from dbt.tests.adapter.utils.data_types.test_type_int import BaseTypeInt
from dbt.tests.adapter.utils.data_types.test_type_numeric import BaseTypeNumeric
from dbt.tests.adapter.utils.data_types.test_type_timestamp import BaseTypeTimestamp
from dbt.tests.adapter.utils.fixture_listagg import models__test_listagg_yml
from dbt.tests.adapter.utils.test_any_value import BaseAnyValue
from dbt.tests.adapter.utils.test_array_concat import BaseArrayConcat
from dbt.tests.adapter.utils.test_bool_or import BaseBoolOr
from dbt.tests.adapter.utils.test_cast import BaseCast
from dbt.tests.adapter.utils.test_cast_bool_to_text import BaseCastBoolToText
from dbt.tests.adapter.utils.test_concat import BaseConcat
from dbt.tests.adapter.utils.test_current_timestamp import BaseCurrentTimestampNaive
from dbt.tests.adapter.utils.test_date import BaseDate
from dbt.tests.adapter.utils.test_date_trunc import BaseDateTrunc
from dbt.tests.adapter.utils.test_dateadd import BaseDateAdd
from dbt.tests.adapter.utils.test_datediff import BaseDateDiff
from dbt.tests.adapter.utils.test_equals import BaseEquals
from dbt.tests.adapter.utils.test_escape_single_quotes import BaseEscapeSingleQuotesBackslash
from dbt.tests.adapter.utils.test_except import BaseExcept
from dbt.tests.adapter.utils.test_hash import BaseHash
from dbt.tests.adapter.utils.test_intersect import BaseIntersect
from dbt.tests.adapter.utils.test_last_day import BaseLastDay
from dbt.tests.adapter.utils.test_length import BaseLength
from dbt.tests.adapter.utils.test_listagg import BaseListagg
from dbt.tests.adapter.utils.test_position import BasePosition
from dbt.tests.adapter.utils.test_replace import BaseReplace
from dbt.tests.adapter.utils.test_right import BaseRight
from dbt.tests.adapter.utils.test_safe_cast import BaseSafeCast
from dbt.tests.adapter.utils.test_split_part import BaseSplitPart
from dbt.tests.adapter.utils.test_string_literal import BaseStringLiteral
from dbt.tests.util import check_relations_equal, relation_from_name, run_dbt

# Spark's versions of two seeds (as dbt-spark has them): no row without a date
# part for last_day, no empty string to split for split_part.
_data_last_day_csv = """date_day,date_part,result
2018-01-02,month,2018-01-31
2018-01-02,quarter,2018-03-31
2018-01-02,year,2018-12-31
"""

_data_split_part_csv = """parts,split_on,result_1,result_2,result_3,result_4
a|b|c,|,a,b,c,c
1|2|3,|,1,2,3,3
EMPTY|EMPTY|EMPTY,|,EMPTY,EMPTY,EMPTY,EMPTY
"""

# Spark's listagg (collect_list, array_join) takes no ordering, so only the
# cases whose result cannot depend on order are compared: group 3 is all 'g'.
_listagg_unordered_sql = """
with data as (
    select * from {{ ref('data_listagg') }} where group_col = 3
),
calculated as (
    select {{ listagg('string_text', "', '") }} as actual, 'comma_whitespace_unordered' as version from data
    union all
    select {{ listagg('DISTINCT string_text', "','") }}, 'distinct_comma' from data
    union all
    select {{ listagg('string_text') }}, 'no_params' from data
)
select calculated.actual, expected.expected
from calculated
join {{ ref('data_listagg_output') }} as expected
  on expected.group_col = 3 and expected.version = calculated.version
"""

MACRO_CLASSES = [
    BaseAnyValue,
    BaseBoolOr,
    BaseCast,
    BaseCastBoolToText,
    BaseConcat,
    BaseDate,
    BaseDateAdd,
    BaseDateDiff,
    BaseDateTrunc,
    BaseEquals,
    BaseEscapeSingleQuotesBackslash,
    BaseExcept,
    BaseHash,
    BaseIntersect,
    BaseLastDay,
    BaseLength,
    BaseListagg,
    BasePosition,
    BaseReplace,
    BaseRight,
    BaseSafeCast,
    BaseSplitPart,
    BaseStringLiteral,
]

# Relations the except and intersect classes compare after their build.
_EQUAL_AFTER_BUILD = [
    ("test_except_a_minus_b", "data_except_a_minus_b"),
    ("test_except_b_minus_a", "data_except_b_minus_a"),
    ("test_except_a_minus_a", "data_except_empty"),
    ("test_except_a_minus_empty", "data_except_a"),
    ("test_except_empty_minus_a", "data_except_empty"),
    ("test_except_empty_minus_empty", "data_except_empty"),
    ("test_intersect_a_overlap_b", "data_intersect_a_overlap_b"),
    ("test_intersect_b_overlap_a", "data_intersect_a_overlap_b"),
    ("test_intersect_a_overlap_a", "data_intersect_a"),
    ("test_intersect_a_overlap_empty", "data_intersect_empty"),
    ("test_intersect_empty_overlap_a", "data_intersect_empty"),
    ("test_intersect_empty_overlap_empty", "data_intersect_empty"),
]


def _class_files(cls, fixture_name):
    """What a class's fixture (seeds, models, ...) returns, from the class itself."""
    for klass in cls.__mro__:
        if fixture_name in vars(klass):
            return vars(klass)[fixture_name].__wrapped__(cls())
    return {}


def _merged(fixture_name):
    merged = {}
    for cls in MACRO_CLASSES:
        files = _class_files(cls, fixture_name)
        assert not set(files) & set(merged), f"{cls.__name__}: file names clash"
        merged.update(files)
    return merged


class TestCrossDatabaseMacros(BaseUtils):
    @pytest.fixture(scope="class")
    def seeds(self):
        seeds = _merged("seeds")
        seeds["data_last_day.csv"] = _data_last_day_csv
        seeds["data_split_part.csv"] = _data_split_part_csv
        return seeds

    @pytest.fixture(scope="class")
    def models(self):
        models = _merged("models")
        models["test_listagg.yml"] = models__test_listagg_yml
        models["test_listagg.sql"] = _listagg_unordered_sql
        return models

    @pytest.fixture(scope="class")
    def project_config_update(self):
        config = _class_files(BaseDateAdd, "project_config_update")
        # datediff's SQL is longer than the 32,700 characters the embedded Derby
        # Hive metastore stores as a view's text: it is built as a (Hudi) table.
        config["models"] = {"test": {"test_datediff": {"+materialized": "table"}}}
        return config

    def test_build_assert_equal(self, project):
        run_dbt(["build"])
        for actual, expected in _EQUAL_AFTER_BUILD:
            check_relations_equal(project.adapter, [actual, expected])
        # BaseEquals: of its 9 cases, 3 are equal and 6 are not.
        for model, kind, count in (
            ("equal_values", "same", 3),
            ("not_equal_values", "different", 6),
        ):
            relation = relation_from_name(project.adapter, model)
            found = project.run_sql(
                f"select count(*) from {relation} where expected = '{kind}'", fetch="one"
            )
            assert found[0] == count


# array_concat's classes build arrays with array_construct too; append is the
# same macro family on the same (view) path.
class TestArrayConcat(BaseArrayConcat):
    pass


# The data type classes with `actual` built as a Hudi table: a type goes
# through the adapter's CREATE TABLE with an explicit schema and its insert.
# Three of dbt's seven: a plain one (int), a parametrized one (numeric) and
# timestamp; the others take the same path with another type name.
class HudiActual:
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"models": {"+materialized": "table"}}


# Seeds type a CSV's whole numbers as bigint (dbt-spark's inference), while
# type_int() is Spark's 4-byte int: the expected seed is given that type.
class TestTypeInt(HudiActual, BaseTypeInt):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {
            "models": {"+materialized": "table"},
            "seeds": {"test": {"expected": {"+column_types": {"int_col": "int"}}}},
        }


class TestTypeNumeric(HudiActual, BaseTypeNumeric):
    pass


class TestTypeTimestamp(HudiActual, BaseTypeTimestamp):
    pass


class TestCurrentTimestamps(test_timestamps.BaseCurrentTimestamps):
    # Spark has one timestamp type, in the session's time zone.
    @pytest.fixture(scope="class")
    def expected_schema(self):
        return {
            "current_timestamp": "timestamp",
            "current_timestamp_in_utc_backcompat": "timestamp",
            "current_timestamp_backcompat": "timestamp",
        }

    # The base class compares the SQL with Postgres's.
    @pytest.fixture(scope="class")
    def expected_sql(self):
        return None


class TestCurrentTimestampNaive(BaseCurrentTimestampNaive):
    pass
