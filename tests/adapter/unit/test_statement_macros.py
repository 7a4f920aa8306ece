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
    ("describe_query", (("relation", "json.`/landing/a`"),)): (
        "describe query select * from json.`/landing/a`"
    ),
    ("show_tables", (("schema", "analytics"),)): "show tables in analytics",
    ("show_compaction", (("table", T),)): "call show_compaction(table => 'analytics.events')",
    ("show_fsview_latest", (("table", T),)): "call show_fsview_latest(table => 'analytics.events')",
    ("show_fs_path_detail", (("path", "file:/lake/events"),)): (
        "call show_fs_path_detail(path => 'file:/lake/events')"
    ),
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


def test_an_unknown_statement_says_so():
    with pytest.raises(Exception, match="No statement macro lakehouse__nope"):
        Statements().sql("nope")
