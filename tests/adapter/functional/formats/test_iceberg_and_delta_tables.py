"""Iceberg and Delta models under the configs Hudi models take, beside Hudi
models in one project: real dbt processes (warm start, as a user runs them)
on a lake of their own, whose profile says nothing of either format: the
session loads their jars and catalogs because the project has such models.

The tests run in file order on one lake, each batch building on the last:
Hudi `changes` -> Iceberg merge (mor, bucketed) / merge (cow, update columns) /
append / insert_overwrite -> Iceberg `table` -> Hudi `table`, and the same
writes as Delta models (`delta_*`), whose rows must equal the Iceberg ones;
change reads of and into each format beside Hudi's.
Tables are read back through the lake's server; the module fixture stops it
by pid.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.warm_lake import WarmLake

# The change rows of each batch: (id, name, ts, op, day). Batch 2 updates 1,
# sends 2 older than stored (ignored), deletes 3, and sends 4 twice (the
# larger ts wins); batch 3 is empty.
BATCHES = {
    1: [
        (1, "a", 1, "U", "2026-01-01"),
        (2, "b", 1, "U", "2026-01-01"),
        (3, "c", 1, "U", "2026-01-02"),
    ],
    2: [
        (1, "a2", 2, "U", "2026-01-01"),
        (2, "stale", 0, "U", "2026-01-01"),
        (3, "c", 5, "D", "2026-01-02"),
        (4, "d3", 3, "U", "2026-01-03"),
        (4, "d1", 1, "U", "2026-01-03"),
    ],
    3: [],
    4: [
        (2, "b4", 4, "U", "2026-01-01"),
        (5, "e", 1, "U", "2026-01-02"),
    ],
}


def values_sql(rows: list[tuple]) -> str:
    if not rows:
        return (
            "select cast(null as int) as id, cast(null as string) as name, cast(null as int) as ts, "
            "cast(null as string) as op, cast(null as date) as day where false"
        )
    values = ", ".join(f"({i}, '{n}', {t}, '{o}', date'{d}')" for i, n, t, o, d in rows)
    return f"select * from values {values} as t(id, name, ts, op, day)"


CHANGES = (
    "{{ config(materialized='table', event_time='day') }}\n{% set batches = "
    + json.dumps({str(b): values_sql(rows) for b, rows in BATCHES.items()})
    + " %}\n{{ batches[var('batch') | string] }}\n"
)
ORDERS = """
{{ config(materialized='incremental', file_format='iceberg', table_type='mor',
          unique_key='id', precombine_key='ts', delete_condition="op = 'D'",
          partition_by='day', index={'type': 'bucket', 'buckets': var('buckets', 4)},
          compaction={'delta_commits': 2}) }}
select id, name, ts, op, day from {{ ref('changes') }}
"""
# merge_update_columns: a matched row keeps its stored first_day.
ORDERS_COW = """
{{ config(materialized='incremental', file_format='iceberg', incremental_strategy='merge',
          unique_key='id', precombine_key='ts', merge_update_columns=['name', 'ts']) }}
select id, name, ts, day as first_day from {{ ref('changes') }} where op <> 'D'
"""
LOG = """
{{ config(materialized='incremental', file_format='iceberg', cleaning={'retain': 1}) }}
select id, op, {{ var('batch') }} as batch from {{ ref('changes') }}
"""
DAILY = """
{{ config(materialized='incremental', file_format='iceberg', incremental_strategy='insert_overwrite',
          partition_by='day') }}
select day, count(*) as changes from {{ ref('changes') }} group by day
"""
TOTALS = """
{{ config(materialized='table', file_format='iceberg', skip_unchanged=true) }}
select count(*) as orders, sum(ts) as ts_sum from {{ ref('orders') }}
"""
# A view is no Iceberg table, whatever file_format its folder sets: it stays
# in the session catalog.
ORDERS_VIEW = """
{{ config(materialized='view', file_format='iceberg') }}
select id, name from {{ ref('orders') }}
"""
TOTALS_HUDI = """
{{ config(materialized='table', skip_unchanged=true) }}
select orders, ts_sum from {{ ref('totals') }}
"""
# Change reads across formats: a Hudi model and an Iceberg one read the
# Iceberg (cow) orders_cow's changes; an Iceberg model reads the Hudi `changes`.
COW_STATE = """
{{ config(materialized='incremental', unique_key='id', precombine_key='ts') }}
select id, name, ts from {{ lake_changes(ref('orders_cow')) }} as c
"""
COW_SUMS = """
{{ config(materialized='incremental', file_format='iceberg', unique_key='first_day',
          skip_unchanged=true) }}
with deltas as (
  select first_day, sum(_sign) as n, sum(_sign * ts) as ts_sum
  from {{ lake_signed_changes(ref('orders_cow'), ['first_day', 'ts']) }} as d group by first_day
)
{% if is_incremental() %}
select d.first_day, coalesce(t.n, 0) + d.n as n, coalesce(t.ts_sum, 0) + d.ts_sum as ts_sum
from deltas as d left join {{ this }} as t on t.first_day = d.first_day
{% else %}
select * from deltas
{% endif %}
"""
FROM_HUDI = """
{{ config(materialized='incremental', file_format='iceberg', unique_key='id', precombine_key='ts') }}
select id, name, ts from {{ lake_changes(ref('changes')) }} as c where op <> 'D'
"""
# dbt's microbatch, one day a batch: written by its own test (a plain run
# would run every day since `begin`).
MICROBATCH = """
{{ config(materialized='incremental', file_format='iceberg', incremental_strategy='microbatch',
          unique_key='id', precombine_key='ts', event_time='day', batch_size='day', lookback=0,
          begin=modules.datetime.datetime(2026, 1, 1)) }}
select id, name, ts, day from {{ ref('changes') }} where op <> 'D'
"""
# A write staged and never published: what a run killed between its write
# and the publish leaves (a snapshot outside the table's ancestry).
STAGE_ONLY = """
{% macro stage_only(table, wap_id, row) %}
  {% do run_query('set `spark.wap.id` = `' ~ wap_id ~ '`') %}
  {% do run_query('insert into ' ~ table ~ ' values ' ~ row) %}
  {% do run_query('reset spark.wap.id') %}
{% endmacro %}
"""
# The same models as Delta tables (mor: deletion vectors; Delta takes no
# bucket index; the cleaning is on the table whose overwrite removes files).
DELTA_MODELS = {
    "delta_orders": """
{{ config(materialized='incremental', file_format='delta', table_type='mor',
          unique_key='id', precombine_key='ts', delete_condition="op = 'D'",
          partition_by='day', compaction={'delta_commits': 2}) }}
select id, name, ts, op, day from {{ ref('changes') }}
""",
    "delta_orders_cow": ORDERS_COW.replace("file_format='iceberg'", "file_format='delta'"),
    "delta_change_log": """
{{ config(materialized='incremental', file_format='delta') }}
select id, op, {{ var('batch') }} as batch from {{ ref('changes') }}
""",
    "delta_daily": DAILY.replace(
        "partition_by='day')", "partition_by='day', cleaning={'retain': 1})"
    ).replace("file_format='iceberg'", "file_format='delta'"),
}
DELTA_MODELS["delta_totals"] = """
{{ config(materialized='table', file_format='delta', skip_unchanged=true) }}
select count(*) as orders, sum(ts) as ts_sum from {{ ref('delta_orders') }}
"""
# Change reads of and into Delta: a Hudi model and a Delta one read the
# changes of delta_orders_cow (its Change Data Feed), as cow_state and
# cow_sums read orders_cow's; a Delta model reads the Hudi `changes`.
# delta_cow_state also selects from its upstream by name, in the same query
# as its change read (as the warehouse's dwd_accounts does): the change read
# still reads the change feed (Spark resolves a table name once per query).
DELTA_MODELS["delta_cow_state"] = COW_STATE.replace("'orders_cow'", "'delta_orders_cow'").replace(
    " as c\n", " as c\nwhere c.id in (select id from {{ ref('delta_orders_cow') }})\n"
)
DELTA_MODELS["delta_cow_sums"] = COW_SUMS.replace("'orders_cow'", "'delta_orders_cow'").replace(
    "file_format='iceberg'", "file_format='delta'"
)
DELTA_MODELS["delta_from_hudi"] = FROM_HUDI.replace("file_format='iceberg'", "file_format='delta'")
MODELS = {
    **DELTA_MODELS,
    "changes": CHANGES,
    "orders": ORDERS,
    "orders_cow": ORDERS_COW,
    "change_log": LOG,
    "daily": DAILY,
    "totals": TOTALS,
    "totals_hudi": TOTALS_HUDI,
    "orders_view": ORDERS_VIEW,
    "cow_state": COW_STATE,
    "cow_sums": COW_SUMS,
    "from_hudi": FROM_HUDI,
}


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Iterator[WarmLake]:
    warm = WarmLake(tmp_path_factory.mktemp("iceberg"), MODELS)
    (warm.project / "macros").mkdir(exist_ok=True)
    (warm.project / "macros" / "stage_only.sql").write_text(STAGE_ONLY)
    try:
        yield warm
    finally:
        warm.stop_all()


def run(lake: WarmLake, batch: int, *args: str, expect_ok: bool = True, **variables) -> str:
    code, output = lake.dbt("run", "--vars", json.dumps({"batch": batch, **variables}), *args)
    assert (code == 0) == expect_ok, output
    return output


def snapshots(lake: WarmLake, table: str) -> list[str]:
    return [
        row[0]
        for row in lake.rows(
            f"select operation from iceberg.warm.{table}.snapshots order by committed_at"
        )
    ]


def delta_history(lake: WarmLake, table: str) -> list[tuple[str, dict]]:
    """(operation, operation metrics) of each commit of a Delta table, oldest first."""
    rows = lake.rows(f"describe history warm.{table}")
    return [(row[4], dict(row[12] or {})) for row in sorted(rows, key=lambda r: r[0])]


def delta_data_history(lake: WarmLake, table: str) -> list[tuple[str, dict]]:
    """The commits of a Delta table that changed data (delta_history.NO_DATA_COMMITS)."""
    return [
        (op, metrics)
        for op, metrics in delta_history(lake, table)
        if op not in ("SET TBLPROPERTIES", "VACUUM START", "VACUUM END")
    ]


def test_a_project_with_iceberg_models_gets_iceberg_beside_hudi(lake):
    output = run(lake, 1)
    # The model's relation is the session catalog's, as every format's is.
    assert "model warm.orders " in output, output
    described = {row[0]: row[1] for row in lake.rows("describe table extended warm.orders")}
    assert described["Provider"] == "iceberg"
    assert lake.query("set spark.lakehouse.tableFormats")[1] == "hudi,iceberg,delta"
    assert lake.rows("select id, name, ts from iceberg.warm.orders order by id") == [
        (1, "a", 1),
        (2, "b", 1),
        (3, "c", 1),
    ]
    assert lake.query("select orders, ts_sum from warm.totals_hudi") == (3, 3)
    assert lake.query("select count(*) from warm.orders_view") == (3,)
    # One schema of the session catalog names both formats' tables; Iceberg's
    # own catalog keeps the Iceberg ones only.
    session_tables = {row[1] for row in lake.rows("show tables in warm")}
    assert {"changes", "totals_hudi", "orders", "orders_view"} <= session_tables
    iceberg_tables = {row[1] for row in lake.rows("show tables in iceberg.warm")}
    assert "orders" in iceberg_tables and "changes" not in iceberg_tables
    assert (lake.lake / "warehouse" / "iceberg" / "warm" / "orders" / "metadata").is_dir()
    # Delta's tables too: schema.table.
    assert {"delta_orders", "delta_totals"} <= session_tables
    assert (lake.lake / "warehouse" / "warm.db" / "delta_orders" / "_delta_log").is_dir()
    assert lake.query("select orders, ts_sum from warm.delta_totals") == (3, 3)


def live_deletion_vectors(lake: WarmLake, table: str) -> int:
    """How many files of a Delta table's current version carry a deletion
    vector, replaying its log on disk (a few commits: no checkpoint yet)."""
    live: dict[str, object] = {}
    log = lake.lake / "warehouse" / "warm.db" / table / "_delta_log"
    for commit in sorted(log.glob("*.json")):
        for line in commit.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                live[action["add"]["path"]] = action["add"].get("deletionVector")
            elif "remove" in action:
                live.pop(action["remove"]["path"], None)
    return sum(1 for vector in live.values() if vector)


def test_merge_keeps_the_latest_version_per_key_and_deletes_by_condition(lake):
    output = run(lake, 2)
    assert lake.rows("select id, name, ts, day from iceberg.warm.orders order by id") == [
        (1, "a2", 2, _date("2026-01-01")),
        (2, "b", 1, _date("2026-01-01")),  # ts 0 is older than the stored 1
        (4, "d3", 3, _date("2026-01-03")),  # the batch's larger ts
    ]
    assert lake.query("select orders, ts_sum from warm.totals_hudi") == (3, 6)
    # The Delta model: the same rows, and its merge (mor) marked the replaced
    # and deleted rows in deletion vectors instead of rewriting their files.
    assert lake.rows("select id, name, ts, day from warm.delta_orders order by id") == lake.rows(
        "select id, name, ts, day from iceberg.warm.orders order by id"
    )
    assert lake.query("select orders, ts_sum from warm.delta_totals") == (3, 6)
    history = delta_history(lake, "delta_orders")
    assert [op for op, _ in history[:2]] == ["CREATE OR REPLACE TABLE AS SELECT", "MERGE"]
    merged = history[1][1]
    assert int(merged["numTargetDeletionVectorsAdded"]) > 0
    assert int(merged["numTargetRowsUpdated"]) == 1 and int(merged["numTargetRowsDeleted"]) == 1
    # Its second version met the compaction trigger: OPTIMIZE (and REORG
    # when deletion vectors were left) rewrote the files, the rows the same.
    compactions = [op for op, _ in history[2:]]
    assert compactions and set(compactions) <= {"OPTIMIZE", "REORG"}
    assert live_deletion_vectors(lake, "delta_orders") == 0
    # Cleaning after the overwrite: VACUUM, keeping the files of the latest version.
    assert "delta_daily: vacuum warm.delta_daily retain" in output
    # One snapshot a write (the first a CREATE OR REPLACE); merge-on-read: the
    # MERGE wrote position delete files, not rewritten data files; then its
    # second commit met the compaction trigger: a rewrite of the data files
    # that applied them, and one of the delete files left dangling (each a
    # `replace`), leaving fewer files and the same rows.
    assert snapshots(lake, "orders") == ["overwrite", "overwrite", "replace", "replace"]
    history = lake.rows(
        "select summary['added-position-deletes'], summary['total-data-files'],"
        " summary['total-delete-files'] from iceberg.warm.orders.snapshots order by committed_at"
    )
    merged, compacted = history[1], history[-1]
    assert int(merged[0]) > 0
    assert int(compacted[1]) < int(merged[1]) and int(compacted[2]) < int(merged[2])
    partitions = {
        row[0] for row in lake.rows("select partition.id_bucket from iceberg.warm.orders.files")
    }
    assert partitions and partitions <= set(range(4))


def test_cow_merge_updates_only_the_named_columns(lake):
    assert lake.rows("select id, name, ts, first_day from iceberg.warm.orders_cow order by id") == [
        (1, "a2", 2, _date("2026-01-01")),
        (2, "b", 1, _date("2026-01-01")),
        (3, "c", 1, _date("2026-01-02")),
        (4, "d3", 3, _date("2026-01-03")),
    ]
    assert lake.query("select count(*) from iceberg.warm.orders_cow.delete_files")[0] == 0
    assert rows_of(lake, "warm.delta_orders_cow", "first_day") == rows_of(
        lake, "iceberg.warm.orders_cow", "first_day"
    )
    # cow: the merge rewrote files, no deletion vector.
    merged = delta_history(lake, "delta_orders_cow")[-1][1]
    assert int(merged["numTargetDeletionVectorsAdded"]) == 0
    assert int(merged["numTargetFilesRemoved"]) > 0


def test_append_keeps_every_row_and_insert_overwrite_replaces_the_batch_days(lake):
    assert lake.query("select count(*), max(batch) from iceberg.warm.change_log") == (8, 2)
    # cleaning: {retain: 1}: the first batch's snapshot expired after the second.
    assert snapshots(lake, "change_log") == ["append"]
    assert lake.rows("select day, changes from iceberg.warm.daily order by day") == [
        (_date("2026-01-01"), 2),  # batch 2's count replaced batch 1's
        (_date("2026-01-02"), 1),
        (_date("2026-01-03"), 2),
    ]
    assert lake.query("select count(*), max(batch) from warm.delta_change_log") == (8, 2)
    assert lake.rows("select day, changes from warm.delta_daily order by day") == lake.rows(
        "select day, changes from iceberg.warm.daily order by day"
    )


def test_an_empty_batch_writes_no_snapshot(lake):
    tables = ("orders", "orders_cow", "change_log", "daily", "totals", "cow_sums")
    before = {t: snapshots(lake, t) for t in tables}
    delta_tables = (
        "delta_orders",
        "delta_orders_cow",
        "delta_change_log",
        "delta_daily",
        "delta_totals",
        "delta_cow_sums",
        "delta_from_hudi",
    )
    delta_before = {t: delta_data_history(lake, t) for t in delta_tables}
    hudi_before = lake.rows("call show_commits(table => 'warm.totals_hudi', limit => 10)")
    output = run(lake, 3)
    assert "no new rows, no snapshot written" in output
    assert {t: snapshots(lake, t) for t in before} == before
    assert {t: delta_data_history(lake, t) for t in delta_tables} == delta_before
    # delta_from_hudi read `changes`' new (empty) commit and wrote nothing: it
    # recorded the position as a table property, a commit with no data.
    assert delta_history(lake, "delta_from_hudi")[-1][0] == "SET TBLPROPERTIES"
    # skip_unchanged: orders has no new snapshot, so neither table model is
    # rebuilt (the Hudi one compares its Iceberg upstream's current
    # snapshot); cow_sums read an empty range, and is not run.
    assert "totals: nothing it selects from has a new commit; not rebuilt" in output
    assert "totals_hudi: nothing it selects from has a new commit; not rebuilt" in output
    # (The Delta one compares its Delta upstream's latest version.)
    assert "delta_totals: nothing it selects from has a new commit; not rebuilt" in output
    assert "cow_sums: nothing new to read; not run" in output
    assert "delta_cow_sums: nothing new to read; not run" in output
    assert lake.rows("call show_commits(table => 'warm.totals_hudi', limit => 10)") == hudi_before


def cow_sums(lake: WarmLake) -> list[tuple]:
    return lake.rows("select first_day, n, ts_sum from iceberg.warm.cow_sums order by first_day")


def rows_of(lake: WarmLake, table: str, *more: str) -> list[tuple]:
    return lake.rows(f"select {', '.join(['id', 'name', 'ts', *more])} from {table} order by id")


def assert_cow_state_is_current(lake: WarmLake) -> None:
    """The Hudi readers of orders_cow and delta_orders_cow hold their rows
    (ids are never deleted there); the Delta readers equal the Iceberg ones."""
    assert rows_of(lake, "warm.cow_state") == rows_of(lake, "iceberg.warm.orders_cow")
    assert rows_of(lake, "warm.delta_cow_state") == rows_of(lake, "warm.delta_orders_cow")
    delta_sums = "select first_day, n, ts_sum from warm.delta_cow_sums order by first_day"
    assert lake.rows(delta_sums) == cow_sums(lake)
    assert rows_of(lake, "warm.delta_from_hudi") == rows_of(lake, "iceberg.warm.from_hudi")


def latest_version(lake: WarmLake, table: str) -> int:
    return max(row[0] for row in lake.rows(f"describe history warm.{table}"))


def delta_recorded(lake: WarmLake, table: str) -> dict[str, str]:
    """What the latest commit of a Delta model that recorded anything recorded."""
    rows = lake.rows(f"describe history warm.{table}")
    metadata = [row[13] for row in sorted(rows, key=lambda r: r[0]) if row[13]]  # userMetadata
    return json.loads(metadata[-1].split(":", 1)[1])["recorded"]


def test_change_reads_of_an_iceberg_table_exactly_once_across_a_killed_write(lake):
    # After batches 1-3: the sums of orders_cow's rows by first_day.
    assert cow_sums(lake) == [
        (_date("2026-01-01"), 2, 3),  # 1 (ts 1 -> 2: out and in again), 2
        (_date("2026-01-02"), 1, 1),
        (_date("2026-01-03"), 1, 3),
    ]
    assert_cow_state_is_current(lake)
    # (from_hudi leaves out the delete of 3: it keeps the row.)
    assert rows_of(lake, "iceberg.warm.from_hudi") == [
        (1, "a2", 2),
        (2, "b", 1),
        (3, "c", 1),
        (4, "d3", 3),
    ]
    # Each write recorded the snapshot of orders_cow it read through.
    upstream_now = lake.query(
        "select snapshot_id from iceberg.warm.orders_cow.snapshots order by committed_at desc"
    )[0]
    summary = lake.query(
        "select summary['wap.id'] from iceberg.warm.cow_sums.snapshots"
        " where summary['wap.id'] is not null order by committed_at desc"
    )[0]
    recorded = json.loads(summary.split(":", 1)[1])["recorded"]
    assert recorded["hoodie.lakehouse.consumed.warm.orders_cow"] == str(upstream_now)
    assert "hoodie.lakehouse.built_from" in recorded  # (skip_unchanged)
    # A Delta model records the version it read through in its MERGE's commit.
    recorded = delta_recorded(lake, "delta_cow_sums")
    assert recorded["hoodie.lakehouse.consumed.warm.delta_orders_cow"] == str(
        latest_version(lake, "delta_orders_cow")
    )
    # A run killed between its staged write and the publish: a snapshot that
    # claims to have read orders_cow through its current snapshot, never published.
    ancestry_before = lake.rows("select snapshot_id from iceberg.warm.cow_sums.history")
    claim = json.dumps(
        {"recorded": {"hoodie.lakehouse.consumed.warm.orders_cow": "0"}, "run": "killed"}
    ).replace(" ", "")
    args = {"table": "iceberg.warm.cow_sums", "wap_id": "lakehouse:" + claim}
    code, output = lake.dbt(
        "run-operation",
        "stage_only",
        "--args",
        json.dumps({**args, "row": "(date'1999-01-01', 100, 100)"}),
    )
    assert code == 0, output
    assert lake.query("select count(*) from iceberg.warm.cow_sums.snapshots")[0] > len(
        ancestry_before
    )
    delta_readers = ("delta_cow_state", "delta_cow_sums")
    run(
        lake,
        4,
        "-s",
        "changes",
        "orders_cow",
        "cow_state",
        "cow_sums",
        "from_hudi",
        "delta_orders_cow",
        *delta_readers,
        "delta_from_hudi",
    )
    assert cow_sums(lake) == [
        (_date("2026-01-01"), 2, 6),  # 2's ts 1 -> 4
        (_date("2026-01-02"), 2, 2),  # 5 arrived
        (_date("2026-01-03"), 1, 3),
    ]
    assert_cow_state_is_current(lake)
    assert rows_of(lake, "iceberg.warm.from_hudi") == [
        (1, "a2", 2),
        (2, "b4", 4),
        (3, "c", 1),
        (4, "d3", 3),
        (5, "e", 1),
    ]
    # A rewrite of the upstream's files changes no row: the next read finds nothing.
    lake.query(
        "call iceberg.system.rewrite_data_files(table => 'warm.orders_cow',"
        " options => map('rewrite-all', 'true'))"
    )
    assert snapshots(lake, "orders_cow")[-1] == "replace"
    # Delta's OPTIMIZE likewise (its change feed carries nothing of it); a
    # Z-order rewrites the table's one file, where a plain OPTIMIZE has
    # nothing to bin-pack.
    lake.query("optimize warm.delta_orders_cow zorder by (ts)")
    assert delta_history(lake, "delta_orders_cow")[-1][0] == "OPTIMIZE"
    output = run(lake, 4, "-s", "cow_state", "cow_sums", *delta_readers)
    assert output.count("no new rows") == 4, output
    assert cow_sums(lake)[0] == (_date("2026-01-01"), 2, 6)
    assert_cow_state_is_current(lake)


def test_microbatch_replaces_each_window_in_one_snapshot(lake):
    model = lake.project / "models" / "days.sql"
    model.write_text(MICROBATCH)
    # Its Delta twin, checked against it after each run.
    delta_model = lake.project / "models" / "delta_days.sql"
    delta_model.write_text(MICROBATCH.replace("file_format='iceberg'", "file_format='delta'"))
    window = ("-s", "days", "delta_days", "--event-time-start")
    days = "select id, name, ts, day from iceberg.warm.days order by id"
    delta_days = days.replace("iceberg.warm.days", "warm.delta_days")
    try:
        # `changes` holds batch 4: 2 on the 1st, 5 on the 2nd.
        run(lake, 4, *window, "2026-01-01", "--event-time-end", "2026-01-04")
        assert lake.rows(days) == [
            (2, "b4", 4, _date("2026-01-01")),
            (5, "e", 1, _date("2026-01-02")),
        ]
        assert lake.rows(delta_days) == lake.rows(days)
        run(lake, 2, "-s", "changes")
        written = len(snapshots(lake, "days"))
        # The 1st again, from batch 2: its rows replace the window's, even 2's
        # older ts; the 2nd keeps 5 (outside the window).
        run(lake, 2, *window, "2026-01-01", "--event-time-end", "2026-01-02")
        assert lake.rows(days) == [
            (1, "a2", 2, _date("2026-01-01")),
            (2, "stale", 0, _date("2026-01-01")),
            (5, "e", 1, _date("2026-01-02")),
        ]
        assert lake.rows(delta_days) == lake.rows(days)
        # The 2nd (nothing left in its source: 5 goes) and the 3rd (4's larger ts).
        run(lake, 2, *window, "2026-01-02", "--event-time-end", "2026-01-04")
        assert lake.rows(days) == [
            (1, "a2", 2, _date("2026-01-01")),
            (2, "stale", 0, _date("2026-01-01")),
            (4, "d3", 3, _date("2026-01-03")),
        ]
        assert lake.rows(delta_days) == lake.rows(days)
        # One MERGE a window: three windows, three snapshots.
        assert snapshots(lake, "days")[written:] == ["overwrite"] * 3
        assert [op for op, _ in delta_history(lake, "delta_days")][-3:] == ["MERGE"] * 3
    finally:
        model.unlink()
        delta_model.unlink()


SEED_V1 = "id,region,rate\n1,eu,1.5\n2,us,2.0\n3,eu,0.5\n"
SEED_V2 = "id,region,rate\n1,eu,1.5\n2,us,2.5\n4,apac,3.0\n"
SEED_CONFIG = """
seeds:
  - name: rates
    config:
      file_format: iceberg
      partition_by: [region]
      column_types: {id: int, rate: double}
"""
SNAPSHOT = """
{% snapshot rates_history %}
{{ config(file_format='iceberg', target_schema='warm', unique_key='id', strategy='check',
          check_cols=['rate'], hard_deletes='invalidate') }}
select id, region, rate from {{ ref('rates') }}
{% endsnapshot %}
"""
DELTA_SNAPSHOT = SNAPSHOT.replace("rates_history", "rates_history_delta").replace(
    "file_format='iceberg'", "file_format='delta'"
)


def test_seeds_and_snapshots_as_iceberg_and_delta_tables(lake):
    seeds, snaps = lake.project / "seeds", lake.project / "snapshots"
    seeds.mkdir(exist_ok=True)
    snaps.mkdir(exist_ok=True)
    (seeds / "_seeds.yml").write_text(SEED_CONFIG)
    (seeds / "rates.csv").write_text(SEED_V1)
    (snaps / "rates_history.sql").write_text(SNAPSHOT)
    (snaps / "rates_history_delta.sql").write_text(DELTA_SNAPSHOT)
    rates = "select id, region, rate from iceberg.warm.rates order by id"
    history = (
        "select id, rate, dbt_valid_to is null from iceberg.warm.rates_history order by id, rate"
    )
    for command in (["seed"], ["snapshot"]):
        code, output = lake.dbt(*command)
        assert code == 0, output
    assert lake.rows(rates) == [(1, "eu", 1.5), (2, "us", 2.0), (3, "eu", 0.5)]
    files = "select distinct partition.region from iceberg.warm.rates.files"
    assert sorted(row[0] for row in lake.rows(files)) == ["eu", "us"]
    (seeds / "rates.csv").write_text(SEED_V2)
    for command in (["seed"], ["snapshot"]):
        code, output = lake.dbt(*command)
        assert code == 0, output
    assert lake.rows(rates) == [(1, "eu", 1.5), (2, "us", 2.5), (4, "apac", 3.0)]
    # 2's old rate closed, its new one open; 3 gone from the source: closed;
    # 4 new. Every version kept, one MERGE a run.
    assert lake.rows(history) == [
        (1, 1.5, True),
        (2, 2.0, False),
        (2, 2.5, True),
        (3, 0.5, False),
        (4, 3.0, True),
    ]
    assert snapshots(lake, "rates_history")[1:] == ["overwrite"]
    # The same snapshot as a Delta table: the same versions, one MERGE a run.
    assert lake.rows(history.replace("iceberg.warm.rates_history", "warm.rates_history_delta")) == (
        lake.rows(history)
    )
    assert [op for op, _ in delta_history(lake, "rates_history_delta")] == [
        "CREATE TABLE",
        "MERGE",
        "MERGE",
    ]
    code, output = lake.dbt("snapshot")
    assert code == 0 and "no changes, no commit written" in output, output


def test_a_changed_bucket_count_asks_for_a_full_refresh_which_keeps_the_history(lake):
    output = run(lake, 3, "-s", "orders", expect_ok=False, buckets=8)
    assert "Model 'orders'" in output and "--full-refresh" in output
    before = lake.rows("select snapshot_id from iceberg.warm.orders.snapshots")
    run(lake, 2, "-s", "changes", "orders", "--full-refresh", buckets=8)
    after = lake.rows("select snapshot_id from iceberg.warm.orders.snapshots")
    assert set(before) < set(after)  # replaced in place: the old snapshots stay
    assert lake.rows("select id from iceberg.warm.orders order by id") == [(1,), (2,), (4,)]
    described = lake.rows("describe table iceberg.warm.orders")
    assert [row[1] for row in described if row[0].startswith("Part ")] == ["day", "bucket(8, id)"]


BAD_MODELS = {
    "bad": "{{ config(materialized='incremental', file_format='iceberg', unique_key='id',"
    " hudi_options={'hoodie.index.type': 'SIMPLE'}) }}\nselect 1 as id",
    "bad_delta": "{{ config(materialized='incremental', file_format='delta', unique_key='id',"
    " index={'type': 'bucket', 'buckets': 4}) }}\nselect 1 as id",
}


def test_a_config_a_format_does_not_take_fails_the_model_naming_the_fix(lake):
    models = lake.project / "models"
    for name, sql in BAD_MODELS.items():
        (models / f"{name}.sql").write_text(sql)
    try:
        output = run(lake, 3, "-s", *BAD_MODELS, expect_ok=False)
    finally:
        for name in BAD_MODELS:
            (models / f"{name}.sql").unlink()
    assert "Model 'bad': config 'hudi_options'" in output
    assert "file_format 'iceberg'" in output and "tblproperties" in output
    assert "Model 'bad_delta': config 'index'" in output
    assert "file_format 'delta'" in output and "partition_by" in output
    assert "ERROR=2" in output


def test_lake_rollback_and_lake_compact_on_iceberg_and_delta_models(lake):
    # On Delta: RESTORE to the first version, OPTIMIZE.
    args = json.dumps({"model": "delta_orders_cow", "instant": 0})
    code, output = lake.dbt("run-operation", "lake_rollback", "--args", args)
    assert code == 0, output
    assert lake.query("select count(*), sum(ts) from warm.delta_orders_cow") == (3, 3)
    assert delta_history(lake, "delta_orders_cow")[-1][0] == "RESTORE"
    code, output = lake.dbt("run-operation", "lake_compact", "--args", '{"model": "delta_orders"}')
    assert code == 0 and "optimize warm.delta_orders" in output, output

    first = lake.rows(
        "select snapshot_id from iceberg.warm.orders_cow.snapshots order by committed_at"
    )[0][0]
    args = json.dumps({"model": "orders_cow", "instant": first})
    code, output = lake.dbt("run-operation", "lake_rollback", "--args", args)
    assert code == 0, output
    assert lake.query("select count(*), sum(ts) from iceberg.warm.orders_cow") == (3, 3)
    code, output = lake.dbt("run-operation", "lake_compact", "--args", '{"model": "orders_cow"}')
    assert code == 0 and "rewrite_data_files" in output, output


def test_a_read_from_a_snapshot_rolled_back_is_whole_or_refused(lake):
    # orders_cow was rolled back past the snapshots its readers consumed,
    # delta_orders_cow restored to its first version.
    readers = ("cow_state", "cow_sums", "delta_cow_state", "delta_cow_sums")
    output = run(lake, 3, "-s", *readers, expect_ok=False)
    assert "Model 'cow_sums'" in output and "no longer an ancestor" in output
    assert "--full-refresh" in output
    assert "Model 'cow_state'" in output and "Reading the full table instead" in output
    assert "Model 'delta_cow_sums': the version it last consumed" in output
    assert "a RESTORE" in output
    assert "Model 'delta_cow_state': the version it last consumed" in output
    run(lake, 3, "-s", "cow_sums", "delta_cow_sums", "--full-refresh")
    assert cow_sums(lake) == [
        (_date("2026-01-01"), 2, 2),
        (_date("2026-01-02"), 1, 1),
    ]
    delta_sums = "select first_day, n, ts_sum from warm.delta_cow_sums order by first_day"
    assert lake.rows(delta_sums) == cow_sums(lake)


def test_the_docs_catalog_lists_iceberg_models_with_their_snapshot_stats(lake):
    code, output = lake.dbt("docs", "generate", "--vars", json.dumps({"batch": 3}))
    assert code == 0, output
    catalog = json.loads((lake.project / "target" / "catalog.json").read_text())
    orders = catalog["nodes"]["model.warm.orders"]
    assert orders["metadata"]["database"] is None  # (the session catalog's)
    assert list(orders["columns"]) == ["id", "name", "ts", "op", "day"]
    stats = {key: stat["value"] for key, stat in orders["stats"].items()}
    snapshots_now = lake.rows("select snapshot_id from iceberg.warm.orders.snapshots")
    assert stats["commits"] == len(snapshots_now)
    # Rebuilt by the full refresh: no delete files, so its records are its rows.
    assert (stats["rows"], stats["delete_files"]) == (3, 0)
    newest = "select summary['total-data-files'] from iceberg.warm.orders.snapshots"
    assert stats["files"] == int(lake.query(f"{newest} order by committed_at desc limit 1")[0]) > 0
    assert "model.warm.totals_hudi" in catalog["nodes"]  # the Hudi models still there
    delta_orders = catalog["nodes"]["model.warm.delta_orders"]
    assert list(delta_orders["columns"]) == ["id", "name", "ts", "op", "day"]
    delta_stats = {key: stat["value"] for key, stat in delta_orders["stats"].items()}
    assert delta_stats["commits"] == len(delta_history(lake, "delta_orders"))
    assert delta_stats["rows"] == lake.query("select count(*) from warm.delta_orders")[0]
    detail = lake.query("describe detail warm.delta_orders")  # (numFiles, sizeInBytes): 9, 10
    assert (delta_stats["files"], delta_stats["bytes"]) == (detail[9], detail[10])
    assert delta_stats["files"] > 0
    # orders_cow's readers, a Hudi model and an Iceberg one, are where they
    # read last (up to date), in its snapshots.
    cow = {
        key: stat["value"]
        for key, stat in catalog["nodes"]["model.warm.orders_cow"]["stats"].items()
    }
    properties = dict(lake.rows("show tblproperties iceberg.warm.orders_cow"))
    current = properties["current-snapshot-id"]
    for reader in ("cow_state", "cow_sums"):
        assert cow[f"read_by_{reader}"] == f"up to snapshot {current}, up to date"
    # delta_orders_cow's readers, in its versions: both read its RESTORE.
    delta_cow = {
        key: stat["value"]
        for key, stat in catalog["nodes"]["model.warm.delta_orders_cow"]["stats"].items()
    }
    restored = latest_version(lake, "delta_orders_cow")
    assert delta_history(lake, "delta_orders_cow")[restored][0] == "RESTORE"
    for reader in ("delta_cow_state", "delta_cow_sums"):
        assert delta_cow[f"read_by_{reader}"] == f"up to version {restored}, up to date"


def _date(text: str):
    from datetime import date

    return date.fromisoformat(text)
