"""A query that reads a Hudi table's changes and a plain parquet table runs.

Hudi's reader of a table's changes (`hudi_table_changes`, what lake_changes()
and the scoped data tests read) switches the session's
`spark.sql.parquet.enableVectorizedReader` off while the query executes. A
parquet scan of the same query planned before that switch expects column
batches and then gets rows: the query fails with a ClassCastException
(UnsafeRow cannot be cast to ColumnarBatch). A union that reads the changes
first fails every time; a join fails when its broadcasts happen in that order.
"""

SEEDS = "id,rate\n1,10\n2,20\n3,30\n"

UPSTREAM = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id', precombine_key='version') }}
    select id, {{ var('batch') }} as version, id * 100 + {{ var('batch') }} as cost
    from (select explode(sequence(1, 3)) as id)
"""

# Reads the upstream's changes first, then the parquet seed, in one query.
BESIDE_SEED = """
    {{ config(materialized='incremental', incremental_strategy='append') }}
    select id, cost from {{ lake_changes(ref('upstream')) }} as changes
    union all
    select id, rate as cost from {{ ref('rates') }}
"""

# A singular test reading the same two in one query: the records every commit
# changed, as they are now (batch 2's versions), then the seed; it returns a
# row if a sum is wrong.
SUMS_TEST = """
    with changes as (
        select sum(cost) as total
        from hudi_table_changes('{{ ref('upstream') }}', 'latest_state', 'earliest')
    ),
    seeded as (
        select sum(rate) as total from {{ ref('rates') }}
    )
    select * from changes cross join seeded
    where changes.total != 102 + 202 + 302 or seeded.total != 60
"""


def test_changes_and_a_parquet_seed_in_one_query(project):
    project.write("seeds/rates.csv", SEEDS)
    project.write(
        "dbt_project.yml",
        project.root.joinpath("dbt_project.yml").read_text() + "seeds:\n  +file_format: parquet\n",
    )
    project.model("upstream", UPSTREAM)
    project.model("beside_seed", BESIDE_SEED)
    project.write("tests/assert_changes_and_seed_sum.sql", SUMS_TEST)

    project.dbt("seed")
    project.dbt("run", "--vars", "{batch: 1}")
    # Batch 2 updates all three records (log files in the MOR table): the
    # downstream's second run reads them with hudi_table_changes.
    project.dbt("run", "--select", "upstream", "--vars", "{batch: 2}")
    project.dbt("run", "--select", "beside_seed", "--vars", "{batch: 2}")
    assert project.scalar("select sum(cost) from {schema}.beside_seed") == (
        (101 + 201 + 301)
        + 60  # first run: batch 1 and the seed
        + (102 + 202 + 302)
        + 60  # second run: batch 2's changes and the seed again
    )

    project.dbt("test", "--vars", "{batch: 2}")
