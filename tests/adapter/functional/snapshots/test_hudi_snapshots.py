"""Snapshots are Hudi tables keyed by the version's scd id: every version is kept.

A `round` var chooses the source's rows, so a test drives rows through several
versions (changes, deletes, revivals) run after run.
"""

import pytest

from tests.dbt_harness import failures

# The source is a Hudi table model, rebuilt each round from the `round` var.
# Round 1: three accounts. Round 2: a1 changes tier. Round 3: a1 changes again
# and a3 disappears. a2 never changes.
ACCOUNTS_MODEL = """
{{ config(materialized='table') }}
select account_id, tier, region from (values
    (1, 'a1', 'bronze', 'eu'),
    (2, 'a1', 'silver', 'eu'),
    (3, 'a1', 'gold', 'eu'),
    (1, 'a2', 'bronze', 'us'),
    (2, 'a2', 'bronze', 'us'),
    (3, 'a2', 'bronze', 'us'),
    (1, 'a3', 'gold', 'us'),
    (2, 'a3', 'gold', 'us')
) as t(round, account_id, tier, region)
where round = {{ var('round') }}
"""

# `select *` of a Hudi table also returns its _hoodie_* meta columns, which
# change on every rebuild: they must not count as the row's data.
CHECK_SNAPSHOT = """
{{% snapshot accounts_history %}}
    {{{{ config(unique_key='account_id', strategy='check', check_cols='all', {options}) }}}}
    select * from {{{{ ref('accounts') }}}}
{{% endsnapshot %}}
"""


@pytest.mark.parametrize(
    "table_type,options",
    [
        # The legacy flag and the 1.9+ config take the same path; one each.
        ("cow", "hard_deletes='invalidate'"),
        ("mor", "table_type='mor', invalidate_hard_deletes=true"),
    ],
)
def test_check_strategy_keeps_every_version(project, table_type, options):
    project.model("accounts", ACCOUNTS_MODEL)
    project.write("snapshots/accounts_history.sql", CHECK_SNAPSHOT.format(options=options))
    for round_ in (1, 2, 3):
        project.dbt("build", "--vars", f"{{round: {round_}}}")

    rows = project.rows(
        "select account_id, tier, dbt_valid_from, dbt_valid_to from {schema}.accounts_history"
        " order by account_id, dbt_valid_from"
    )
    a1 = [r for r in rows if r.account_id == "a1"]
    # Three versions of a1, in order, each ending where the next begins; only the last is open.
    assert [r.tier for r in a1] == ["bronze", "silver", "gold"]
    assert a1[0].dbt_valid_to == a1[1].dbt_valid_from
    assert a1[1].dbt_valid_to == a1[2].dbt_valid_from
    assert a1[2].dbt_valid_to is None
    # a2 never changed: one open version. a3 left the source: its version was closed.
    assert [(r.tier, r.dbt_valid_to is None) for r in rows if r.account_id == "a2"] == [
        ("bronze", True)
    ]
    a3 = [r for r in rows if r.account_id == "a3"]
    assert len(a3) == 1 and a3[0].dbt_valid_to == a1[2].dbt_valid_from
    assert project.scalar("select count(distinct dbt_scd_id) from {schema}.accounts_history") == 5

    # On disk: a Hudi table (no file_format was set) whose record key is the scd id.
    props = project.hoodie_properties("accounts_history")
    assert props["hoodie.table.recordkey.fields"] == "dbt_scd_id"
    assert (
        props["hoodie.table.type"] == {"cow": "COPY_ON_WRITE", "mor": "MERGE_ON_READ"}[table_type]
    )
    action = {"cow": "commit", "mor": "deltacommit"}[table_type]
    assert [a for _, _, a in project.completed_instants("accounts_history")] == [action] * 3

    # The snapshot holds the source's columns, not its Hudi meta columns.
    columns = [r.col_name for r in project.rows("describe {schema}.accounts_history")]
    assert columns[5:9] == ["account_id", "tier", "region", "dbt_scd_id"]
    # A run that finds nothing new writes no commit.
    project.dbt("snapshot", "--vars", "{round: 3}")
    assert len(project.completed_instants("accounts_history")) == 3
    assert project.scalar("select count(*) from {schema}.accounts_history") == 5


# Round 2: c1 is corrected (newer updated_at), c2 is deleted. Round 3: c2 comes
# back. The meta columns are renamed, so the record key is the renamed scd id.
TIMESTAMP_SNAPSHOT = """
{% snapshot customers_history %}
    {{ config(
        unique_key='customer_id',
        strategy='timestamp',
        updated_at='updated_at',
        hard_deletes='new_record',
        snapshot_meta_column_names={
            'dbt_scd_id': 'version_id',
            'dbt_valid_from': 'valid_from',
            'dbt_valid_to': 'valid_to',
            'dbt_is_deleted': 'is_deleted',
        },
    ) }}
    select customer_id, email, updated_at from (values
        (1, 'c1', 'c1@old', timestamp'2024-01-01 00:00:00'),
        (1, 'c2', 'c2@mail', timestamp'2024-01-01 00:00:00'),
        (2, 'c1', 'c1@new', timestamp'2024-02-01 00:00:00'),
        (3, 'c1', 'c1@new', timestamp'2024-02-01 00:00:00'),
        (3, 'c2', 'c2@back', timestamp'2100-01-01 00:00:00')
    ) as t(round, customer_id, email, updated_at)
    where round = {{ var('round') }}
{% endsnapshot %}
"""


def test_timestamp_strategy_with_new_record_deletes(project):
    project.write("snapshots/customers_history.sql", TIMESTAMP_SNAPSHOT)
    for round_ in (1, 2, 3):
        project.dbt("snapshot", "--vars", f"{{round: {round_}}}")

    rows = project.rows(
        "select customer_id, email, valid_from, valid_to, is_deleted from {schema}.customers_history"
        " order by customer_id, valid_from"
    )
    c1 = [
        (r.email, str(r.valid_from), str(r.valid_to), r.is_deleted)
        for r in rows
        if r.customer_id == "c1"
    ]
    # The timestamp strategy dates versions by the source's updated_at.
    assert c1 == [
        ("c1@old", "2024-01-01 00:00:00", "2024-02-01 00:00:00", "False"),
        ("c1@new", "2024-02-01 00:00:00", "None", "False"),
    ]
    c2 = [r for r in rows if r.customer_id == "c2"]
    # The original version closed at the deletion, a deletion record, then the revived row.
    assert [(r.email, r.is_deleted) for r in c2] == [
        ("c2@mail", "False"),
        ("c2@mail", "True"),
        ("c2@back", "False"),
    ]
    assert c2[0].valid_to == c2[1].valid_from  # deleted at the run that found it gone
    assert (
        str(c2[1].valid_to) == str(c2[2].valid_from) == "2100-01-01 00:00:00"
        and c2[2].valid_to is None
    )
    assert project.scalar("select count(distinct version_id) from {schema}.customers_history") == 5
    assert (
        project.hoodie_properties("customers_history")["hoodie.table.recordkey.fields"]
        == "version_id"
    )


@pytest.mark.parametrize(
    "options,expected",
    [
        # Not Hudi: dbt-spark's snapshot materialization, which accepts only table formats.
        ("file_format='parquet'", ["Invalid file format: parquet"]),
        ("precombine_key='tier'", ["accounts_history", "precombine_key", "written once"]),
    ],
)
def test_other_formats_and_unsupported_configs(project, options, expected):
    project.model("accounts", ACCOUNTS_MODEL)
    project.write("snapshots/accounts_history.sql", CHECK_SNAPSHOT.format(options=options))
    result = project.dbt("snapshot", "--vars", "{round: 1}", expect_ok=False)
    message = " ".join(failures(result))
    for fragment in expected:
        assert fragment in message, f"{fragment!r} missing from: {message}"
    assert not (project.table_dir("accounts_history") / ".hoodie").exists()
