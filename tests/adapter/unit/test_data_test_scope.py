"""Which data tests can be scoped to what a run wrote, and the predicate that does it."""

import dataclasses

import pytest
from dbt_common.exceptions import CompilationError

from dbt.adapters.lakehouse.data_tests import scope as data_test_scope
from dbt.adapters.lakehouse.data_tests.queries import DataTestQueries
from dbt.adapters.lakehouse.statements import Statements

QUERIES = DataTestQueries(Statements())


@pytest.mark.parametrize(
    "name, kwargs, kind",
    [
        ("not_null", {"column_name": "event_id"}, ("rows", [])),
        ("accepted_values", {"column_name": "billing_type", "values": ["CPC"]}, ("rows", [])),
        (
            "relationships",
            {"column_name": "ad_id", "to": "ref('ods_ads')", "field": "ad_id"},
            ("rows", []),
        ),
        ("unique", {"column_name": "event_id"}, ("keys", ["event_id"])),
        (
            "unique_combination_of_columns",
            {"combination_of_columns": ["event_date", "account_id"]},
            ("keys", ["event_date", "account_id"]),
        ),
        # Sums over the table compared with another: part of it would not add up.
        ("cost_conserved", {"column_name": "cost_micros"}, None),
    ],
)
def test_a_generic_test_is_scoped_by_its_kind(name, kwargs, kind):
    assert data_test_scope.test_kind({"name": name, "kwargs": kwargs}, {}) == kind


def test_a_singular_test_is_checked_whole():
    assert data_test_scope.test_kind(None, {}) is None


def test_a_test_opts_in_or_out_in_its_meta():
    assert data_test_scope.test_kind(
        {"name": "my_range_check", "kwargs": {}}, {"lakehouse_test_scope": "rows"}
    ) == ("rows", [])
    assert (
        data_test_scope.test_kind(
            {"name": "not_null", "kwargs": {}}, {"lakehouse_test_scope": "full"}
        )
        is None
    )


SINCE = data_test_scope.Since(instant="20261124101010123", completed="20261124101011456")


def test_rows_are_read_incrementally_from_the_completion_time():
    scoped = QUERIES.scoped_relation("s.t", ("rows", []), SINCE, where="cost > 0")
    assert scoped == (
        "(select * from hudi_table_changes('s.t', 'latest_state', '20261124101011456') "
        "where (cost > 0)) dbt_subquery"
    )


def test_rows_come_from_the_snapshot_where_the_incremental_read_returns_lost_writes():
    since = dataclasses.replace(SINCE, incremental_exact=False, partitions=((("d", "x"),),))
    scoped = QUERIES.scoped_relation("s.t", ("rows", []), since, where="cost > 0")
    assert scoped == (
        "(select * from s.t where ((cast(`d` as string) = 'x')) and _hoodie_commit_time > '20261124101010123'"
        " and (cost > 0)) dbt_subquery"
    )


def test_a_key_test_reads_every_row_sharing_a_written_key():
    written = "_hoodie_commit_time > '20261124101010123'"
    one = QUERIES.scoped_relation("s.t", ("keys", ["event_id"]), SINCE)
    assert (
        one
        == f"(select * from s.t where event_id in (select event_id from s.t where {written})) dbt_subquery"
    )
    two = QUERIES.scoped_relation("s.t", ("keys", ["d", "a"]), SINCE)
    assert (
        two
        == f"(select * from s.t where (d, a) in (select d, a from s.t where {written})) dbt_subquery"
    )
    # The test's own `where` applies to the keys and to the rows read.
    filtered = QUERIES.scoped_relation("s.t", ("keys", ["k"]), SINCE, where="x = 1")
    assert (
        filtered
        == f"(select * from s.t where k in (select k from s.t where {written} and (x = 1)) and (x = 1)) dbt_subquery"
    )


def test_an_unknown_mode_names_the_var_and_the_choices():
    with pytest.raises(CompilationError, match="lakehouse_test_scope is 'some'.*'full'.*'changed'"):
        data_test_scope.check_mode("some", "not_null_x")
    assert data_test_scope.check_mode(" Changed ", "x") == "changed"


def test_a_reconciliation_compares_the_groups_either_table_had_written():
    sql = QUERIES.changed_values(
        [
            ("s.daily", data_test_scope.Since("5", "6")),
            ("s.events", data_test_scope.Since("7", "8")),
        ],
        ["event_date"],
    )
    assert sql == (
        "select event_date from s.daily where _hoodie_commit_time > '5' union "
        "select event_date from s.events where _hoodie_commit_time > '7'"
    )


VIEW = {
    "name": "labelled",
    "depends_on": {"nodes": ["model.p.events", "model.p.labels"]},
    "config": {"meta": {"lakehouse_rows_from": {"model": "events", "key": "event_id"}}},
}
NODES = {
    "model.p.events": {
        "resource_type": "model",
        "name": "events",
        "schema": "s",
        "alias": "events",
    },
    "model.p.labels": {
        "resource_type": "model",
        "name": "labels",
        "schema": "s",
        "alias": "labels",
    },
}


def test_a_model_declares_the_upstream_its_rows_follow():
    upstream, key, partition_by = data_test_scope.rows_from(VIEW, NODES)
    assert (upstream["alias"], key, partition_by) == ("events", "event_id", ())
    assert data_test_scope.rows_from({"name": "plain", "config": {}}, NODES) is None
    scoped = QUERIES.rows_from_relation("s.labelled", "s.events", "event_id", SINCE)
    assert scoped == (
        "(select * from s.labelled where event_id in (select event_id from s.events "
        "where _hoodie_commit_time > '20261124101010123')) dbt_subquery"
    )


@pytest.mark.parametrize(
    "declared, message",
    [
        (
            {"model": "nothing", "key": "event_id"},
            "names model 'nothing', which 'labelled' does not select from",
        ),
        ({"model": "events"}, "write it as a model this one selects from and the key they share"),
        ("events", "write it as a model this one selects from and the key they share"),
    ],
)
def test_a_wrong_declaration_says_what_to_write(declared, message):
    with pytest.raises(CompilationError, match=message):
        data_test_scope.rows_from(
            {**VIEW, "config": {"meta": {"lakehouse_rows_from": declared}}}, NODES
        )


def predicate(partitions):
    return Statements().sql("written_partitions", partitions=partitions)


def test_the_partitions_written_become_a_filter_on_their_columns():
    columns, partitions = data_test_scope.partition_values(
        ["event_date=2026-11-24", "event_date=2026-11-25", "event_date=2026-11-24"]
    )
    assert columns == ("event_date",)
    assert predicate(partitions) == (
        "((cast(`event_date` as string) = '2026-11-24') or "
        "(cast(`event_date` as string) = '2026-11-25'))"
    )
    columns, partitions = data_test_scope.partition_values(
        ["region=eu/day=2026-11-24", "region=__HIVE_DEFAULT_PARTITION__/day=2026-11-25"]
    )
    assert columns == ("region", "day")
    assert predicate(partitions) == (
        "((`region` is null and cast(`day` as string) = '2026-11-25') or "
        "(cast(`region` as string) = 'eu' and cast(`day` as string) = '2026-11-24'))"
    )
    # A write that wrote nothing: no partition, no row.
    assert predicate(()) == "false"


@pytest.mark.parametrize(
    "paths",
    [
        [""],  # a table not partitioned
        ["2026-11-24"],  # not hive-style: the path does not name its column
        ["event_date=2026-11-24", "day=2026-11-25"],  # not one layout
        ["name=o'brien"],  # a value that cannot be quoted as is
        [],
    ],
)
def test_partitions_that_cannot_be_named_prune_nothing(paths):
    assert data_test_scope.partition_values(paths) is None


def test_the_rows_written_are_read_from_the_partitions_written():
    columns, partitions = data_test_scope.partition_values(["event_date=2026-11-24"])
    since = data_test_scope.Since("5", "6", partitions=partitions, partition_columns=columns)
    written = f"{predicate(partitions)} and _hoodie_commit_time > '5'"
    assert QUERIES.written_filter(since) == written
    assert QUERIES.scoped_relation("s.t", ("keys", ["k"]), since) == (
        f"(select * from s.t where k in (select k from s.t where {written})) dbt_subquery"
    )
    # A view with the upstream's partition column: its rows come from those partitions too.
    assert QUERIES.rows_from_relation("s.v", "s.t", "k", since, partition_by=("event_date",)) == (
        f"(select * from s.v where {predicate(partitions)} and k in (select k from s.t where {written})) dbt_subquery"
    )
    # Declared on other columns than the upstream's: the view is not pruned.
    assert QUERIES.rows_from_relation("s.v", "s.t", "k", since, partition_by=("day",)) == (
        f"(select * from s.v where k in (select k from s.t where {written})) dbt_subquery"
    )


def test_a_view_declares_the_partition_columns_it_shares():
    declared = {"model": "events", "key": "event_id", "partition_by": "event_date"}
    _, _, partition_by = data_test_scope.rows_from(
        {**VIEW, "config": {"meta": {"lakehouse_rows_from": declared}}}, NODES
    )
    assert partition_by == ("event_date",)
