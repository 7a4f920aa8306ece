"""Every wrong lake config, in one table: each fails at compile time with a
message naming the model, the config key, the bad value and what is allowed
(or how to fix it). Pure Python: the same checks the macros call, no Spark.

A row gives the model config, the check that refuses it (None: parsing the
config, `HudiTableConfig.from_model_config`; else a later check the write
path calls once it knows the strategy, the model's columns or the existing
table), the key and value the message must name, and fragments of what is
allowed. A row with a later check first parses its config without error, so
each mistake is proven to be caught in the phase the row says.

Not here, because the snapshot macro refuses them itself (snapshot.sql):
precombine_key, partition_by and delete_condition on a snapshot; see
tests/adapter/functional/hudi_tables/test_config_errors.py. A precombine_key without
a unique_key is not refused (a keyless table simply has nothing to order).
"""

import pytest

from dbt.adapters.lakehouse.formats import config_support
from dbt.adapters.lakehouse.formats.delta.table_config import DeltaTableConfig
from dbt.adapters.lakehouse.formats.hudi.table_config import HudiTableConfig
from dbt.adapters.lakehouse.formats.iceberg.table_config import IcebergTableConfig
from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError

MODEL = "fct_orders"
NO_VALUE = object()  # the mistake is a missing setting: there is no bad value to show


def strategy(name):
    return lambda lake: lake.check_strategy(name)


def outputs(*columns):
    return lambda lake: lake.check_columns(columns)


def existing_table(**tblproperties):
    return lambda lake: lake.check_against_table(tblproperties, [])


KEYED = {"unique_key": "id"}
MOR = {"table_type": "mor", "unique_key": "id"}

ROWS = [
    # --- table layout ---------------------------------------------------------
    (
        "table_type bad value",
        {"table_type": "merge_on_read"},
        None,
        "table_type",
        "merge_on_read",
        ["Use one of: cow, mor"],
    ),
    ("table_type not a string", {"table_type": 1}, None, "table_type", 1, ["cow, mor"]),
    (
        "unique_key not column names",
        {"unique_key": 3},
        None,
        "unique_key",
        3,
        ["a column name or a list of column names"],
    ),
    (
        "unique_key empty column name",
        {"unique_key": ["id", ""]},
        None,
        "unique_key",
        ["id", ""],
        ["must not be empty"],
    ),
    (
        "precombine_key several columns",
        {**KEYED, "precombine_key": ["v", "ts"]},
        None,
        "precombine_key",
        ["v", "ts"],
        ["one column name"],
    ),
    (
        "precombine_key empty",
        {**KEYED, "precombine_key": " "},
        None,
        "precombine_key",
        " ",
        ["one column name"],
    ),
    (
        "partition_by not column names",
        {"partition_by": {"day": 1}},
        None,
        "partition_by",
        {"day": 1},
        ["a column name or a list of column names"],
    ),
    # --- index ----------------------------------------------------------------
    (
        "index not a mapping",
        {**KEYED, "index": "bucket"},
        None,
        "index",
        "bucket",
        ["a mapping with keys: buckets, type"],
    ),
    (
        "index bad type",
        {**KEYED, "index": {"type": "hash"}},
        None,
        "index.type",
        "hash",
        ["bloom, simple, bucket"],
    ),
    (
        "index without type",
        {**KEYED, "index": {"buckets": 8}},
        None,
        "index.type",
        NO_VALUE,
        ["bloom, simple, bucket"],
    ),
    (
        "index bad buckets",
        {**KEYED, "index": {"type": "bucket", "buckets": 0}},
        None,
        "index.buckets",
        0,
        ["at least 1"],
    ),
    (
        "index buckets not a number",
        {**KEYED, "index": {"type": "bucket", "buckets": "8"}},
        None,
        "index.buckets",
        "8",
        ["whole number"],
    ),
    (
        "index buckets on a bloom index",
        {**KEYED, "index": {"type": "bloom", "buckets": 4}},
        None,
        "index.buckets",
        4,
        ["`type: bucket` only"],
    ),
    (
        "index unknown key",
        {**KEYED, "index": {"type": "bucket", "engine": "consistent"}},
        None,
        "index.engine",
        "consistent",
        ["allowed keys: buckets, type"],
    ),
    (
        "index bucket without unique_key",
        {"index": {"type": "bucket"}},
        None,
        "index",
        "bucket",
        ["set unique_key, or remove index"],
    ),
    # --- compaction -----------------------------------------------------------
    (
        "compaction not a mapping",
        {**MOR, "compaction": "inline"},
        None,
        "compaction",
        "inline",
        ["a mapping with keys: delta_commits, delta_seconds, mode, trigger"],
    ),
    (
        "compaction bad trigger",
        {**MOR, "compaction": {"trigger": "daily"}},
        None,
        "compaction.trigger",
        "daily",
        ["num_commits, time_elapsed, num_and_time, num_or_time"],
    ),
    (
        "compaction bad delta_commits",
        {**MOR, "compaction": {"delta_commits": 0}},
        None,
        "compaction.delta_commits",
        0,
        ["at least 1"],
    ),
    (
        "compaction bad delta_seconds",
        {**MOR, "compaction": {"delta_seconds": "1h"}},
        None,
        "compaction.delta_seconds",
        "1h",
        ["whole number of at least 1"],
    ),
    (
        "compaction bad mode",
        {**MOR, "compaction": {"mode": "async"}},
        None,
        "compaction.mode",
        "async",
        ["inline, schedule, off"],
    ),
    (
        "compaction unknown key",
        {**MOR, "compaction": {"every": 3}},
        None,
        "compaction.every",
        3,
        ["allowed keys: delta_commits, delta_seconds, mode, trigger"],
    ),
    (
        "compaction on a COW table",
        {**KEYED, "compaction": {"delta_commits": 3}},
        None,
        "compaction",
        {"delta_commits": 3},
        ["merge-on-read tables only", "table_type: mor"],
    ),
    # --- cleaning -------------------------------------------------------------
    (
        "cleaning not a mapping",
        {"cleaning": 10},
        None,
        "cleaning",
        10,
        ["a mapping with keys: automatic, policy, retain"],
    ),
    (
        "cleaning bad policy",
        {"cleaning": {"policy": "keep_all"}},
        None,
        "cleaning.policy",
        "keep_all",
        ["keep_latest_commits, keep_latest_file_versions, keep_latest_by_hours"],
    ),
    (
        "cleaning bad retain",
        {"cleaning": {"retain": -1}},
        None,
        "cleaning.retain",
        -1,
        ["at least 1"],
    ),
    (
        "cleaning automatic not a bool",
        {"cleaning": {"automatic": "no"}},
        None,
        "cleaning.automatic",
        "no",
        ["true or false"],
    ),
    (
        "cleaning unknown key",
        {"cleaning": {"keep": 2}},
        None,
        "cleaning.keep",
        2,
        ["allowed keys: automatic, policy, retain"],
    ),
    # --- hudi_options ---------------------------------------------------------
    (
        "hudi_options not a mapping",
        {"hudi_options": ["hoodie.metadata.enable"]},
        None,
        "hudi_options",
        ["hoodie.metadata.enable"],
        ["a mapping of hoodie.* keys"],
    ),
    # Hudi would ignore the misspelt name silently: an unordered table.
    (
        "hudi_options non-hoodie key",
        {"hudi_options": {"precombineKey": "ts"}},
        None,
        "hudi_options",
        "precombineKey",
        ["Only hoodie.* keys", "precombine_key"],
    ),
    (
        "hudi_options key owned by index",
        {**KEYED, "hudi_options": {"hoodie.index.type": "BLOOM"}},
        None,
        "hudi_options",
        "hoodie.index.type",
        ["The `index` config sets it"],
    ),
    (
        "hudi_options key owned by the layout",
        {"hudi_options": {"hoodie.datasource.write.precombine.field": "ts"}},
        None,
        "hudi_options",
        "hoodie.datasource.write.precombine.field",
        ["The `precombine_key` config sets it"],
    ),
    (
        "hudi_options key owned by compaction",
        {**MOR, "hudi_options": {"hoodie.compact.inline": False}},
        None,
        "hudi_options",
        "hoodie.compact.inline",
        ["The `compaction` config sets it"],
    ),
    (
        "hudi_options key owned by cleaning",
        {"hudi_options": {"hoodie.cleaner.commits.retained": 5}},
        None,
        "hudi_options",
        "hoodie.cleaner.commits.retained",
        ["The `cleaning` config sets it"],
    ),
    (
        "hudi_options write operation",
        {"hudi_options": {"hoodie.datasource.write.operation": "insert"}},
        None,
        "hudi_options",
        "hoodie.datasource.write.operation",
        ["The `incremental_strategy` config sets it"],
    ),
    # --- options / tblproperties (dbt-spark's configs) ------------------------
    (
        "options not a mapping",
        {"options": "type=mor"},
        None,
        "options",
        "type=mor",
        ["a mapping of names to values"],
    ),
    (
        "options name not a string",
        {"options": {3: "mor"}},
        None,
        "options",
        3,
        ["Names are strings"],
    ),
    (
        "options unknown key",
        {"options": {"precombine_field": "ts"}},
        None,
        "options",
        "precombine_field",
        ["Accepted keys: type, primaryKey, preCombineField", "any hoodie.* key"],
    ),
    (
        "options bad table type",
        {"options": {"type": "bogus"}},
        None,
        "options.type",
        "bogus",
        ["cow, mor", "COPY_ON_WRITE, MERGE_ON_READ"],
    ),
    (
        "options precombine several columns",
        {**KEYED, "options": {"preCombineField": "v,ts"}},
        None,
        "options.preCombineField",
        "v,ts",
        ["set precombine_key to one column"],
    ),
    (
        "options conflict with unique_key",
        {"unique_key": "order_id", "options": {"primaryKey": "id"}},
        None,
        "options.primaryKey",
        "id",
        ["unique_key = 'order_id'", "prefer unique_key"],
    ),
    (
        "tblproperties conflict with table_type",
        {"table_type": "cow", "tblproperties": {"type": "mor"}},
        None,
        "tblproperties.type",
        "mor",
        ["table_type = 'cow'", "prefer table_type"],
    ),
    (
        "options conflict with a compaction block",
        {
            **MOR,
            "compaction": {"delta_commits": 5},
            "options": {"hoodie.compact.inline.max.delta.commits": "3"},
        },
        None,
        "options.hoodie.compact.inline.max.delta.commits",
        3,
        ["compaction.delta_commits = 5", "prefer compaction"],
    ),
    (
        "options conflict with hudi_options",
        {
            "hudi_options": {"hoodie.metadata.enable": True},
            "options": {"hoodie.metadata.enable": "false"},
        },
        None,
        "options.hoodie.metadata.enable",
        "false",
        ["hudi_options.hoodie.metadata.enable = True", "prefer hudi_options"],
    ),
    (
        "options and tblproperties disagree",
        {"options": {"primaryKey": "id"}, "tblproperties": {"primaryKey": "key"}},
        None,
        "tblproperties.primaryKey",
        "key",
        ["options.primaryKey = 'id'", "Set it in one place"],
    ),
    (
        "two Hudi names for one config disagree",
        {**KEYED, "options": {"preCombineField": "v", "orderingFields": "ts"}},
        None,
        "options.orderingFields",
        "ts",
        ["options.preCombineField = 'v'", "prefer precombine_key"],
    ),
    (
        "options compaction count not a number",
        {**MOR, "options": {"hoodie.compact.inline.max.delta.commits": "x"}},
        None,
        "options.hoodie.compact.inline.max.delta.commits",
        "x",
        ["whole number"],
    ),
    (
        "options compaction flag not a bool",
        {**MOR, "options": {"hoodie.compact.inline": "yes"}},
        None,
        "options.hoodie.compact.inline",
        "yes",
        ["true or false"],
    ),
    (
        "options compaction on a COW table",
        {"options": {"hoodie.compact.inline.max.delta.commits": 3}},
        None,
        "compaction",
        {"delta_commits": 3},
        ["merge-on-read tables only"],
    ),
    (
        "options retain of another cleaning policy",
        {
            "options": {
                "hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS",
                "hoodie.cleaner.commits.retained": "3",
            }
        },
        None,
        "options.hoodie.cleaner.commits.retained",
        "3",
        [
            "KEEP_LATEST_COMMITS, not KEEP_LATEST_FILE_VERSIONS",
            "cleaning: {policy: ..., retain: N}",
        ],
    ),
    (
        "options two retain settings",
        {"options": {"hoodie.cleaner.commits.retained": "3", "hoodie.cleaner.hours.retained": "3"}},
        None,
        "options.hoodie.cleaner.hours.retained",
        "3",
        ["Set one retain setting"],
    ),
    (
        "options index engine",
        {**KEYED, "options": {"hoodie.index.bucket.engine": "CONSISTENT_HASHING"}},
        None,
        "options.hoodie.index.bucket.engine",
        "CONSISTENT_HASHING",
        ["The `index` config sets Hudi's index"],
    ),
    (
        "options write operation",
        {"options": {"hoodie.datasource.write.operation": "bulk_insert"}},
        None,
        "options.hoodie.datasource.write.operation",
        "bulk_insert",
        ["incremental_strategy (append, upsert"],
    ),
    (
        "tblproperties write operation",
        {"tblproperties": {"hoodie.datasource.write.operation": "bulk_insert"}},
        None,
        "tblproperties.hoodie.datasource.write.operation",
        "bulk_insert",
        ["incremental_strategy (append, upsert"],
    ),
    # --- dbt-spark's bucketing ------------------------------------------------
    (
        "clustered_by",
        {**KEYED, "clustered_by": "id"},
        None,
        "clustered_by",
        "id",
        ["index: {type: bucket, buckets: N}"],
    ),
    ("buckets", {**KEYED, "buckets": 8}, None, "buckets", 8, ["index: {type: bucket, buckets: N}"]),
    # --- delete_condition -----------------------------------------------------
    (
        "delete_condition empty",
        {**KEYED, "delete_condition": "  "},
        None,
        "delete_condition",
        "  ",
        ["a SQL boolean expression"],
    ),
    (
        "delete_condition with a keyless strategy",
        {"delete_condition": "op = 'D'"},
        strategy("append"),
        "delete_condition",
        "op = 'D'",
        ["'upsert' or 'merge', not 'append'"],
    ),
    (
        "delete_condition with insert_overwrite",
        {**KEYED, "delete_condition": "op = 'D'"},
        strategy("insert_overwrite"),
        "delete_condition",
        "op = 'D'",
        ["'upsert' or 'merge', not 'insert_overwrite'"],
    ),
    # --- strategy (checked once the materialization picks it) -----------------
    (
        "merge with deletes but no unique_key",
        {"delete_condition": "op = 'D'"},
        strategy("merge"),
        "delete_condition",
        "op = 'D'",
        ["Deletes find their records by unique_key", "set unique_key"],
    ),
    (
        "upsert without unique_key",
        {},
        strategy("upsert"),
        "unique_key",
        NO_VALUE,
        ["'upsert' needs a unique_key"],
    ),
    (
        "microbatch on MOR with precombine_key",
        {**MOR, "precombine_key": "v"},
        strategy("microbatch"),
        "precombine_key",
        "v",
        ["Use table_type 'cow', or remove precombine_key"],
    ),
    # --- key columns (checked against what the model's SELECT outputs) --------
    (
        "unique_key column not output",
        {"unique_key": "order_id"},
        outputs("id", "v"),
        "unique_key",
        "order_id",
        ["it outputs: id, v"],
    ),
    (
        "precombine_key column not output",
        {**KEYED, "precombine_key": "updated_at"},
        outputs("id", "v"),
        "precombine_key",
        "updated_at",
        ["it outputs: id, v"],
    ),
    (
        "partition_by column not output",
        {"partition_by": ["v", "day"]},
        outputs("id", "v"),
        "partition_by",
        "day",
        ["it outputs: id, v"],
    ),
    # --- against the existing table (Hudi fixes these at creation) ------------
    (
        "table_type changed",
        {**KEYED, "table_type": "mor"},
        existing_table(type="cow", primaryKey="id"),
        "table_type",
        "mor",
        ["table has 'cow'", f"dbt run --full-refresh --select {MODEL}"],
    ),
    (
        "bucket count changed",
        {**KEYED, "index": {"type": "bucket", "buckets": 8}},
        existing_table(type="cow", primaryKey="id", **{"hoodie.bucket.index.num.buckets": "4"}),
        "index",
        "8",
        ["table has '4'", f"dbt run --full-refresh --select {MODEL}"],
    ),
]


def assert_names(message: str, key: str, value, allowed: list[str]) -> None:
    """The message names the model, the key, the bad value and what is allowed."""
    expected = [f"Model '{MODEL}'", f"config '{key}'", *allowed]
    if value is not NO_VALUE:
        expected.append(f"= {value!r}")
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in {message!r}"


@pytest.mark.parametrize(
    "config,check,key,value,allowed", [pytest.param(*row[1:], id=row[0]) for row in ROWS]
)
def test_wrong_config_names_model_key_value_and_what_is_allowed(config, check, key, value, allowed):
    if check is None:
        with pytest.raises(LakeConfigError) as excinfo:
            HudiTableConfig.from_model_config(MODEL, config)
    else:
        lake = HudiTableConfig.from_model_config(
            MODEL, config
        )  # parses: the later check refuses it
        with pytest.raises(LakeConfigError) as excinfo:
            check(lake)
    assert_names(str(excinfo.value), key, value, allowed)


# --- the same mistakes on Iceberg and Delta models ---------------------------
# A config both formats take means what it means on Hudi (config_support.py),
# and is parsed by the same code: its mistakes fail with the same message. Rows
# whose config a format refuses by name are left out (test_table_formats.py
# tests those refusals).
MERGE_FORMATS = {"iceberg": IcebergTableConfig, "delta": DeltaTableConfig}


def _taken_by(fmt: str, config: dict) -> bool:
    return all(
        config_support.Support(key).on(fmt) is not None
        for key in config
        if key in {s.key for s in config_support.configs()}
    )


# Rows whose message is Hudi's own: an index on Iceberg is only a bucket
# partition field (its message says so, test_table_formats.py), and Hudi's
# table properties mean nothing on the other formats (theirs are below).
HUDI_ONLY = {"index", "tblproperties"}

PARSE_ROWS = [
    pytest.param(fmt, *row[1:], id=f"{fmt}: {row[0]}")
    for fmt in MERGE_FORMATS
    for row in ROWS
    if row[2] is None and _taken_by(fmt, row[1]) and not HUDI_ONLY & set(row[1])
] + [
    pytest.param(
        fmt,
        {"table_type": "cow", "tblproperties": {prop: value}},
        None,
        f"tblproperties.{prop}",
        value,
        ["table_type = 'cow'", f"file_format '{fmt}'", "prefer table_type"],
        id=f"{fmt}: tblproperties conflict with table_type",
    )
    for fmt, prop, value in (
        ("iceberg", "write.merge.mode", "merge-on-read"),
        ("delta", "delta.enableDeletionVectors", "true"),
        ("delta", "delta.enableChangeDataFeed", "false"),
    )
]


@pytest.mark.parametrize("fmt,config,check,key,value,allowed", PARSE_ROWS)
def test_the_same_mistake_on_iceberg_and_delta_gets_the_same_message(
    fmt, config, check, key, value, allowed
):
    with pytest.raises(LakeConfigError) as excinfo:
        MERGE_FORMATS[fmt].from_model_config(MODEL, config)
    assert_names(str(excinfo.value), key, value, allowed)


def test_a_property_the_configs_set_may_be_repeated_and_a_free_one_changed():
    same = {"table_type": "mor", "tblproperties": {"delta.enableDeletionVectors": "true"}}
    assert (
        DeltaTableConfig.from_model_config(MODEL, same).table_properties()[
            "delta.enableDeletionVectors"
        ]
        == "true"
    )
    v3 = {"tblproperties": {"format-version": "3"}}
    assert (
        IcebergTableConfig.from_model_config(MODEL, v3).table_properties()["format-version"] == "3"
    )
