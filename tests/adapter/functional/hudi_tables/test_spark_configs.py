"""Configs written for dbt-spark on Hudi take effect: `options` and `tblproperties`
as Hudi's docs write them, `location_root`, and pre/post hooks. Each test reads
what Hudi wrote (hoodie.properties, the timeline, the files) or the values."""

from tests.dbt_harness import failures

# Batch 2 brings an older version of id 1 (ts 1 < 5): with the ordering field
# honoured it loses; without it, it would overwrite the newer row.
BATCHES = """
    select id, ts, amount from (values
        (1, 1, 5, 500), (1, 2, 2, 200),
        (2, 1, 1, 111), (2, 3, 1, 300)
    ) as t(batch, id, ts, amount)
    where batch = {{ var('batch') }}
"""

DBT_SPARK_STYLE = (
    """
    {{ config(materialized='incremental', file_format='hudi', incremental_strategy='merge',
              options={'type': 'mor', 'primaryKey': 'id', 'preCombineField': 'ts',
                       'hoodie.table.cdc.enabled': 'true',
                       'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER'}) }}
"""
    + BATCHES
)


def test_dbt_spark_options_set_type_keys_ordering_and_cdc(project):
    project.model("events", DBT_SPARK_STYLE)
    project.dbt("run", "--vars", "{batch: 1}")
    project.dbt("run", "--vars", "{batch: 2}")

    props = project.hoodie_properties("events")
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.recordkey.fields"] == "id"
    assert props["hoodie.table.ordering.fields"] == "ts"
    assert props["hoodie.table.cdc.enabled"] == "true"
    assert [a for _, _, a in project.completed_instants("events")] == ["deltacommit", "deltacommit"]
    # The older version of id 1 lost to the stored one.
    assert [
        tuple(r) for r in project.rows("select id, ts, amount from {schema}.events order by id")
    ] == [(1, 5, 500), (2, 2, 200), (3, 1, 300)]
    # CDC is on: Hudi's change feed reads (it refused non-CDC tables before).
    inserted = project.rows(
        "select cast(get_json_object(after, '$.id') as int) as id "
        "from hudi_table_changes('{schema}.events', 'cdc', 'earliest') where op = 'i' order by id"
    )
    assert [r[0] for r in inserted] == [1, 2, 3]


def test_hudi_docs_tblproperties_and_a_misspelt_option(project):
    project.model(
        "events",
        """
        {{ config(materialized='incremental', unique_key='id',
                  options={'precombineKey': 'ts'},
                  tblproperties={'owner_team': 'billing', 'type': 'mor'}) }}
    """
        + BATCHES,
    )
    project.dbt("run", "--vars", "{batch: 1}")
    project.dbt("run", "--vars", "{batch: 2}")

    props = project.hoodie_properties("events")
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.ordering.fields"] == "ts"
    assert project.scalar("select amount from {schema}.events where id = 1") == 500
    # A plain property is a table property; the misspelling was warned about.
    shown = dict(tuple(r) for r in project.rows("show tblproperties {schema}.events"))
    assert shown["owner_team"] == "billing"
    log = (project.root / "logs" / "dbt.log").read_text()
    assert "options key 'precombineKey' is not a Hudi option" in log
    assert "taken as 'preCombineField'" in log


def test_disagreeing_and_unknown_options_stop_before_writing(project):
    project.model(
        "conflict",
        """
        {{ config(materialized='incremental', unique_key='id', options={'primaryKey': 'amount'}) }}
    """
        + BATCHES,
    )
    project.model(
        "unknown",
        """
        {{ config(materialized='incremental', unique_key='id', options={'recordkey_field': 'id'}) }}
    """
        + BATCHES,
    )
    result = project.dbt("run", "--vars", "{batch: 1}", expect_ok=False)
    messages = " ".join(failures(result))
    for fragment in (
        "conflict",
        "options.primaryKey",
        "'amount'",
        "unique_key",
        "'id'",
        "unknown",
        "recordkey_field",
        "preCombineField",
    ):
        assert fragment in messages, f"{fragment!r} missing from: {messages}"
    assert not project.table_dir("conflict").exists()
    assert not project.table_dir("unknown").exists()


def test_location_root_and_hooks(project, tmp_path):
    root = tmp_path / "elsewhere"
    project.model(
        "audit",
        """
        {{ config(materialized='table', unique_key='id') }}
        select 0 as id, 'start' as step
    """,
    )
    project.model(
        "events",
        f"""
        {{{{ config(materialized='incremental', unique_key='id', precombine_key='ts',
                  location_root='{root}',
                  pre_hook="insert into {{{{ ref('audit') }}}} select 1, 'pre'",
                  post_hook="insert into {{{{ ref('audit') }}}} select (select count(*) from {{{{ this }}}}) + 10, 'post'") }}}}
    """
        + BATCHES,
    )
    project.dbt("run", "--select", "audit")
    project.dbt("run", "--select", "events", "--vars", "{batch: 1}")

    # The Hudi table lives under location_root, with its timeline.
    assert (root / "events" / ".hoodie" / "hoodie.properties").is_file()
    assert not project.table_dir("events").exists()
    # The pre-hook ran before the write, the post-hook after it (it saw 2 rows).
    assert [tuple(r) for r in project.rows("select id, step from {schema}.audit order by id")] == [
        (0, "start"),
        (1, "pre"),
        (12, "post"),
    ]
