"""The adapter's statement macros (macros/statements/), rendered offline with
dbt's Jinja, as the adapter renders them: each one's SQL pinned, every one
covered, and a project's macro of the same name used in its place."""

import pytest

from dbt.adapters.lakehouse.statements import PREFIX, Statements, packaged

T = "analytics.events"

PINNED = {
    ("show_commits", (("table", T), ("limit", 10))): (
        "call show_commits(table => 'analytics.events', limit => 10)"
    ),
    ("show_cleans", (("table", T), ("limit", 10))): (
        "call show_cleans(table => 'analytics.events', limit => 10)"
    ),
    ("show_commit_extra_metadata", (("table", T), ("instant", "20261127080000000"))): (
        "call show_commit_extra_metadata(table => 'analytics.events', "
        "instant_time => '20261127080000000', limit => 1000)"
    ),
    (
        "show_commit_extra_metadata",
        (("table", T), ("instant", "20261127080000000"), ("key", "lakehouse.read")),
    ): (
        "call show_commit_extra_metadata(table => 'analytics.events', "
        "instant_time => '20261127080000000', metadata_key => 'lakehouse.read')"
    ),
    ("show_commit_partitions", (("table", T), ("instant", "20261127080000000"))): (
        "call show_commit_partitions(table => 'analytics.events', "
        "instant_time => '20261127080000000')"
    ),
    ("show_timeline", (("path", "/lake/events/.hoodie/metadata"), ("limit", 50))): (
        "call show_timeline(path => '/lake/events/.hoodie/metadata', limit => 50)"
    ),
    ("delete_metadata_table", (("table", T),)): (
        "call delete_metadata_table(table => 'analytics.events')"
    ),
    ("show_table_properties", (("table", T),)): "show tblproperties analytics.events",
    ("describe_table", (("table", T),)): "describe table extended analytics.events",
    ("describe_schema", (("schema", "analytics"),)): "describe schema extended analytics",
    ("has_rows", (("table", T),)): "select 1 from analytics.events limit 1",
    ("jvm_time_zone", ()): "select reflect('java.time.ZoneId', 'systemDefault')",
    ("show_hudi_table_properties", (("table", T), ("limit", 1000))): (
        "call show_table_properties(table => 'analytics.events', limit => 1000)"
    ),
    ("show_catalog_tables", (("schema", "iceberg.analytics"),)): (
        "show tables in iceberg.analytics"
    ),
    ("iceberg_snapshots", (("table", "iceberg.a.t"),)): (
        "select committed_at, operation from iceberg.a.t.snapshots"
    ),
    ("session_now", ()): "select current_timestamp()",
    ("session_setting", (("key", "spark.sql.extensions"),)): "set spark.sql.extensions",
    ("iceberg_ancestry", (("table", "iceberg.a.t"),)): (
        "select s.snapshot_id, s.parent_id, s.operation, s.summary['total-delete-files'] as delete_files,\n"
        "  s.summary['wap.id'] as wap_id, s.summary['published-wap-id'] as published_wap_id,\n"
        "  coalesce(h.is_current_ancestor, false) as is_current_ancestor\n"
        "from iceberg.a.t.snapshots as s\n"
        "left join (select snapshot_id, bool_or(is_current_ancestor) as is_current_ancestor from iceberg.a.t.history group by snapshot_id) as h\n"
        "  on s.snapshot_id = h.snapshot_id"
    ),
    (
        "iceberg_changelog_view",
        (
            ("catalog", "iceberg"),
            ("table", "a.t"),
            ("view", "v"),
            ("begin", "1"),
            ("end", "2"),
            ("net_changes", True),
            ("key", ("id",)),
        ),
    ): (
        "call iceberg.system.create_changelog_view(\n"
        "  table => 'a.t',\n"
        "  changelog_view => 'v',\n"
        "  options => map('start-snapshot-id', '1', 'end-snapshot-id', '2'), net_changes => true)"
    ),
    (
        "iceberg_changelog_view",
        (
            ("catalog", "iceberg"),
            ("table", "a.t"),
            ("view", "v"),
            ("begin", "1"),
            ("end", "2"),
            ("net_changes", False),
            ("key", ("id", "k")),
        ),
    ): (
        "call iceberg.system.create_changelog_view(\n"
        "  table => 'a.t',\n"
        "  changelog_view => 'v',\n"
        "  options => map('start-snapshot-id', '1', 'end-snapshot-id', '2'), compute_updates => true, identifier_columns => array('id', 'k'))"
    ),
    ("iceberg_as_of", (("table", "iceberg.a.t"), ("snapshot_id", "5"))): (
        "(select * from iceberg.a.t.snapshot_id_5)"
    ),
    ("iceberg_latest_state", (("view", "v"), ("columns", (("id", "int"), ("d", "date"))))): (
        "(select `id`, `d` from v where _change_type = 'INSERT')"
    ),
    (
        "iceberg_cdc_rows",
        (("view", "v"), ("columns", (("id", "int"), ("d", "date"))), ("key", ("id",))),
    ): (
        "(select 'i' as op, cast(c._commit_snapshot_id as string) as ts_ms, cast(null as string) as before, to_json(named_struct('id', c.`id`, 'd', datediff(c.`d`, date'1970-01-01'))) as after from v as c where c._change_type = 'INSERT'\n"
        "union all\n"
        "select 'd' as op, cast(c._commit_snapshot_id as string) as ts_ms, to_json(named_struct('id', c.`id`, 'd', datediff(c.`d`, date'1970-01-01'))) as before, cast(null as string) as after from v as c where c._change_type = 'DELETE'\n"
        "union all\n"
        "select 'u' as op, cast(b._commit_snapshot_id as string) as ts_ms, to_json(named_struct('id', b.`id`, 'd', datediff(b.`d`, date'1970-01-01'))) as before, to_json(named_struct('id', a.`id`, 'd', datediff(a.`d`, date'1970-01-01'))) as after\n"
        "from v as b join v as a\n"
        "  on b._change_ordinal = a._change_ordinal and b.`id` <=> a.`id`\n"
        "where b._change_type = 'UPDATE_BEFORE' and a._change_type = 'UPDATE_AFTER')"
    ),
    ("cdc_image", (("alias", "c"), ("columns", (("id", "int"), ("d", "timestamp"))))): (
        "to_json(named_struct('id', c.`id`, 'd', unix_micros(c.`d`)))"
    ),
    (
        "iceberg_snapshot_as_cdc_inserts",
        (("table", "iceberg.a.t"), ("snapshot_id", "5"), ("columns", (("id", "int"),))),
    ): (
        "(select 'i' as op, '5' as ts_ms, cast(null as string) as before, to_json(named_struct('id', t.`id`)) as after from iceberg.a.t.snapshot_id_5 as t)"
    ),
    ("iceberg_snapshot_stats", (("table", "iceberg.a.t"),)): (
        "select snapshot_id, operation, committed_at,\n"
        "  summary['total-data-files'] as `total-data-files`,\n"
        "  summary['total-delete-files'] as `total-delete-files`,\n"
        "  summary['total-files-size'] as `total-files-size`,\n"
        "  summary['total-records'] as `total-records`\n"
        "from iceberg.a.t.snapshots\n"
        "order by committed_at desc"
    ),
    ("delta_detail", (("table", "a.t"),)): "describe detail a.t",
    ("delta_history", (("table", "a.t"),)): "describe history a.t",
    ("delta_optimize", (("table", "a.t"),)): "optimize a.t",
    ("delta_latest_versions", (("table", "a.t"),)): "describe history a.t limit 10",
    ("delta_purge", (("table", "a.t"),)): "reorg table a.t apply (purge)",
    ("delta_vacuum", (("table", "a.t"), ("hours", "0.250"))): "vacuum a.t retain 0.250 hours",
    ("delta_restore", (("table", "a.t"), ("version", "3"))): (
        "restore table a.t to version as of 3"
    ),
    ("delta_as_of", (("location", "s3a://b/w/a.db/t"), ("version", "5"))): (
        "(select * from delta.`s3a://b/w/a.db/t@v5`)"
    ),
    ("delta_table_changes", (("location", "s3a://b/w/a.db/t"), ("first", 3), ("last", "5"))): (
        "table_changes_by_path('s3a://b/w/a.db/t', 3, 5)"
    ),
    (
        "delta_latest_state",
        (
            ("location", "s3a://b/w/a.db/t"),
            ("first", 3),
            ("last", "5"),
            ("columns", (("id", "int"), ("d", "date"))),
            ("key", ("id",)),
        ),
    ): (
        "(select `id`, `d` from (select *, row_number() over (partition by `id` order by _commit_version desc, case when _change_type in ('insert', 'update_postimage') then 1 else 0 end desc) as _lakehouse_last from table_changes_by_path('s3a://b/w/a.db/t', 3, 5)) as c where _lakehouse_last = 1 and _change_type in ('insert', 'update_postimage'))"
    ),
    (
        "delta_latest_state",
        (
            ("location", "s3a://b/w/a.db/t"),
            ("first", 3),
            ("last", "5"),
            ("columns", (("id", "int"), ("d", "date"))),
            ("key", ()),
        ),
    ): (
        "(select `id`, `d` from table_changes_by_path('s3a://b/w/a.db/t', 3, 5) where _change_type in ('insert', 'update_postimage'))"
    ),
    (
        "delta_cdc_rows",
        (
            ("location", "s3a://b/w/a.db/t"),
            ("first", 3),
            ("last", "5"),
            ("columns", (("id", "int"), ("d", "date"))),
            ("key", ("id",)),
        ),
    ): (
        "(select 'i' as op, cast(c._commit_version as string) as ts_ms, cast(null as string) as before, to_json(named_struct('id', c.`id`, 'd', datediff(c.`d`, date'1970-01-01'))) as after from table_changes_by_path('s3a://b/w/a.db/t', 3, 5) as c where c._change_type = 'insert'\n"
        "union all\n"
        "select 'd' as op, cast(c._commit_version as string) as ts_ms, to_json(named_struct('id', c.`id`, 'd', datediff(c.`d`, date'1970-01-01'))) as before, cast(null as string) as after from table_changes_by_path('s3a://b/w/a.db/t', 3, 5) as c where c._change_type = 'delete'\n"
        "union all\n"
        "select 'u' as op, cast(b._commit_version as string) as ts_ms, to_json(named_struct('id', b.`id`, 'd', datediff(b.`d`, date'1970-01-01'))) as before, to_json(named_struct('id', a.`id`, 'd', datediff(a.`d`, date'1970-01-01'))) as after\n"
        "from table_changes_by_path('s3a://b/w/a.db/t', 3, 5) as b join table_changes_by_path('s3a://b/w/a.db/t', 3, 5) as a\n"
        "  on b._commit_version = a._commit_version and b.`id` <=> a.`id`\n"
        "where b._change_type = 'update_preimage' and a._change_type = 'update_postimage')"
    ),
    (
        "delta_cdc_rows",
        (
            ("location", "s3a://b/w/a.db/t"),
            ("first", 3),
            ("last", "5"),
            ("columns", (("id", "int"), ("d", "date"))),
            ("key", ()),
        ),
    ): (
        "(select 'i' as op, cast(c._commit_version as string) as ts_ms, cast(null as string) as before, to_json(named_struct('id', c.`id`, 'd', datediff(c.`d`, date'1970-01-01'))) as after from table_changes_by_path('s3a://b/w/a.db/t', 3, 5) as c where c._change_type = 'insert' or c._change_type = 'update_postimage'\n"
        "union all\n"
        "select 'd' as op, cast(c._commit_version as string) as ts_ms, to_json(named_struct('id', c.`id`, 'd', datediff(c.`d`, date'1970-01-01'))) as before, cast(null as string) as after from table_changes_by_path('s3a://b/w/a.db/t', 3, 5) as c where c._change_type = 'delete' or c._change_type = 'update_preimage')"
    ),
    (
        "delta_snapshot_as_cdc_inserts",
        (("location", "/w/a.db/t"), ("version", "5"), ("columns", (("id", "int"),))),
    ): (
        "(select 'i' as op, '5' as ts_ms, cast(null as string) as before, to_json(named_struct('id', t.`id`)) as after from delta.`/w/a.db/t@v5` as t)"
    ),
    ("iceberg_rewrite_data_files", (("catalog", "iceberg"), ("table", "a.t"))): (
        "call iceberg.system.rewrite_data_files(table => 'a.t', options => "
        "map('delete-file-threshold', '1', 'remove-dangling-deletes', 'true'))"
    ),
    ("iceberg_rewrite_position_deletes", (("catalog", "iceberg"), ("table", "a.t"))): (
        "call iceberg.system.rewrite_position_delete_files(table => 'a.t')"
    ),
    (
        "iceberg_expire_snapshots",
        (
            ("catalog", "iceberg"),
            ("table", "a.t"),
            ("older_than", "2026-12-02 10:00:00.000000"),
            ("retain_last", 3),
        ),
    ): (
        "call iceberg.system.expire_snapshots(table => 'a.t', older_than => "
        "timestamp '2026-12-02 10:00:00.000000', retain_last => 3)"
    ),
    ("iceberg_rollback", (("catalog", "iceberg"), ("table", "a.t"), ("snapshot_id", 42))): (
        "call iceberg.system.rollback_to_snapshot(table => 'a.t', snapshot_id => 42)"
    ),
    ("describe_query", (("relation", "json.`/landing/a`"),)): (
        "describe query select * from json.`/landing/a`"
    ),
    ("show_tables", (("schema", "analytics"),)): "show tables in analytics",
    ("show_compaction", (("table", T),)): "call show_compaction(table => 'analytics.events')",
    ("show_fsview_latest", (("table", T),)): "call show_fsview_latest(table => 'analytics.events')",
    ("show_fs_path_detail", (("path", "file:/lake/events"),)): (
        "call show_fs_path_detail(path => 'file:/lake/events')"
    ),
    ("list_paths", (("pattern", "s3a://b/w/a.db/t\\[1\\]/*"),)): (
        "call show_fs_path_detail(path => 's3a://b/w/a.db/t\\[1\\]/*')"
    ),
    ("create_placeholder", (("table", "a.t__lakehouse_leftover"),)): (
        "create table a.t__lakehouse_leftover (placeholder int) using parquet"
    ),
    ("point_placeholder", (("table", "a.t__lakehouse_leftover"), ("location", "s3a://b/it's"))): (
        "alter table a.t__lakehouse_leftover set location 's3a://b/it\\'s'"
    ),
    ("drop_placeholder", (("table", "a.t__lakehouse_leftover"),)): (
        "drop table if exists a.t__lakehouse_leftover"
    ),
    ("purge_iceberg_table", (("table", "iceberg.a.t"),)): "drop table iceberg.a.t purge",
    ("count_rows", (("relation", T),)): "select count(*) from analytics.events",
    ("binary_files_stats", (("relation", "binaryFile.`/landing`"),)): (
        "select count(*), coalesce(sum(length), 0), max(modificationTime) "
        "from binaryFile.`/landing`"
    ),
}


# Keys and values are taken verbatim: a `;` does not end the statement, a
# backquote is doubled.
PINNED |= {
    ("show_settings", ()): "set",
    ("show_setting", (("key", "spark.sql.parquet.enableVectorizedReader"),)): (
        "set spark.sql.parquet.enableVectorizedReader"
    ),
    ("set_setting", (("key", "hoodie.c"), ("value", "x; drop table t"))): (
        "set `hoodie.c` = `x; drop table t`"
    ),
    ("reset_setting", (("key", "hoodie.a`b"),)): "reset `hoodie.a``b`",
}


# Change reads (change_reads/queries.py says which one a range needs).
CHANGES = "hudi_table_changes('dwd.events', 'cdc', '1', '2')"
PINNED |= {
    (
        "table_changes",
        (("table", "dwd.events"), ("mode", "cdc"), ("begin", "1"), ("end", "2")),
    ): CHANGES,
    ("table_changes", (("table", T), ("mode", "latest_state"), ("begin", "earliest"))): (
        "hudi_table_changes('analytics.events', 'latest_state', 'earliest')"
    ),
    ("all_rows", (("relation", "dws.s__lakehouse_read_1"),)): (
        "(select * from dws.s__lakehouse_read_1)"
    ),
    ("no_rows", (("relation", T),)): "(select * from analytics.events where false)",
    ("no_cdc_rows", ()): (
        "(select cast(null as string) as op, cast(null as string) as ts_ms, "
        "cast(null as string) as before, cast(null as string) as after where false)"
    ),
    (
        "current_records",
        (("table", "dwd.events"), ("changes", CHANGES), ("partition_columns", ("day", "hour"))),
    ): (
        f"(select changes.* from {CHANGES} as changes left semi join (select _hoodie_record_key, "
        "_hoodie_partition_path, _hoodie_commit_time from dwd.events where array_contains("
        f"(select collect_set(struct(`day`, `hour`)) from {CHANGES}), struct(`day`, `hour`))) "
        "as current on changes._hoodie_record_key = current._hoodie_record_key and "
        "changes._hoodie_partition_path = current._hoodie_partition_path and "
        "changes._hoodie_commit_time = current._hoodie_commit_time)"
    ),
    ("cdc_image_json", (("column", "event_date"), ("data_type", "DATE"))): (
        "datediff(event_date, date'1970-01-01')"
    ),
    ("cdc_image_value", (("image", "c.image"), ("field", "at"), ("data_type", "timestamp"))): (
        "timestamp_micros(cast(c.image.`at` as bigint))"
    ),
    (
        "snapshot_as_cdc_inserts",
        (("table", "dwd.events"), ("columns", (("id", "bigint"), ("at", "timestamp")))),
    ): (
        "(select 'i' as op, _hoodie_commit_time as ts_ms, cast(null as string) as before, "
        "to_json(named_struct('id', id, 'at', unix_micros(at))) as after from dwd.events)"
    ),
    ("signed_snapshot", (("table", "dwd.events"), ("columns", ("d", "cost")))): (
        "(select 1 as _sign, d, cost from dwd.events)"
    ),
    (
        "signed_images",
        (("relation", "(select * from x)"), ("columns", (("d", "D", "date"), ("c", "c", "int")))),
    ): (
        "(select 1 as _sign, date_add(date'1970-01-01', cast(c.image.`D` as int)) as d, "
        "cast(c.image.`c` as int) as c from (select from_json(c.after, '`D` string, `c` string') "
        "as image from (select * from x) as c where c.after is not null and c.after != 'null') "
        "as c union all select -1 as _sign, date_add(date'1970-01-01', cast(c.image.`D` as int)) "
        "as d, cast(c.image.`c` as int) as c from (select from_json(c.before, '`D` string, "
        "`c` string') as image from (select * from x) as c where c.before is not null and "
        "c.before != 'null') as c)"
    ),
    ("distinct_keys", (("signed", "(signed)"), ("keys", ("d", "a")))): (
        "(select distinct d, a from (signed) as images)"
    ),
}

# Data tests scoped to what a run wrote (data_tests/queries.py).
PINNED |= {
    (
        "written_partitions",
        (("partitions", ((("d", "x"), ("r", None)), (("d", "y"), ("r", "eu")))),),
    ): (
        "((cast(`d` as string) = 'x' and `r` is null) or "
        "(cast(`d` as string) = 'y' and cast(`r` as string) = 'eu'))"
    ),
    ("written_since", (("instant", "5"), ("partitions", ()))): (
        "false and _hoodie_commit_time > '5'"
    ),
    (
        "keys_in",
        (("keys", ("d", "a")), ("relation", T), ("conditions", ("x", "y")), ("where", "z = 1")),
    ): ("(d, a) in (select d, a from analytics.events where x and y and (z = 1))"),
    ("tested_rows", (("relation", T), ("conditions", ("k in (1)",)))): (
        "(select * from analytics.events where k in (1)) dbt_subquery"
    ),
    ("tested_changes", (("changes", "hudi_table_changes(x)"), ("where", "z = 1"))): (
        "(select * from hudi_table_changes(x) where (z = 1)) dbt_subquery"
    ),
    ("changed_values", (("columns", ("d",)), ("written", (("s.a", "x"), ("s.b", "y"))))): (
        "select d from s.a where x union select d from s.b where y"
    ),
}


@pytest.mark.parametrize("case", sorted(PINNED, key=str), ids=lambda case: case[0])
def test_each_statement_renders_its_sql(case):
    name, arguments = case
    assert Statements().sql(name, **dict(arguments)) == PINNED[case]


def test_every_packaged_statement_is_pinned():
    assert {PREFIX + name for name, _ in PINNED} == set(packaged())


def test_a_projects_macro_of_the_same_name_is_used_instead():
    own = "{% macro lakehouse__show_commits(table, limit) %}select * from {{ table }}_log{% endmacro %}"
    statements = Statements(lambda name: own if name == "lakehouse__show_commits" else None)
    assert statements.sql("show_commits", table=T, limit=10) == "select * from analytics.events_log"
    # The others stay the adapter's.
    assert statements.sql("has_rows", table=T) == PINNED[("has_rows", (("table", T),))]


def test_a_projects_macro_can_call_the_others_of_its_file_and_they_call_it():
    # The project's image encoding: every column as text.
    own = (
        "{% macro lakehouse__cdc_image_json(column, data_type) %}"
        "cast({{ column }} as string){% endmacro %}"
    )
    statements = Statements(lambda name: own if name == "lakehouse__cdc_image_json" else None)
    sql = statements.sql("snapshot_as_cdc_inserts", table="t", columns=[("d", "date")])
    assert "named_struct('d', cast(d as string))" in sql


def test_an_unknown_statement_says_so():
    with pytest.raises(Exception, match="No statement macro lakehouse__nope"):
        Statements().sql("nope")


def test_no_statement_macro_takes_the_place_of_a_dispatched_dbt_macro():
    """dbt dispatches its macros (current_timestamp, list_schemas, ...) to
    `lakehouse__<name>`: a statement of that name would replace dbt's macro in
    every project."""
    import re
    from pathlib import Path

    import dbt.include.global_project as dbt_global
    import dbt.include.spark as dbt_spark

    defined = set()
    for package in (dbt_global, dbt_spark):
        for path in Path(package.PACKAGE_PATH).rglob("*.sql"):
            defined |= set(re.findall(r"macro\s+(?:default|spark)__(\w+)\s*\(", path.read_text()))
    shadowing = {name for name in packaged() if name.removeprefix(PREFIX) in defined}
    assert not shadowing, f"rename these statements: {sorted(shadowing)}"
