"""A write's batch is staged once, before the write, and keeps its rows
through it: in the embedded session it is held in Spark's memory
(writes/memory_staging.py), with nothing on the lake and nothing left in memory
after the run, a failed one included."""

from tests.dbt_harness import spark

# Each incremental run deletes every record the table holds and inserts the
# run's own ids. The deletes are written after the upserts, reading the batch
# again: a batch recomputed after the upserts (a view, or a cache that the
# write's table refresh invalidates) would delete the new ids too.
MODEL = """
    {{ config(materialized='incremental', unique_key='id', delete_condition="op = 'D'") }}
    {% if is_incremental() %}
    select id, 'D' as op from {{ this }}
    union all
    {% endif %}
    select id, 'I' as op from (select explode(sequence({{ var('first') }}, {{ var('first') }} + 2)) as id)
"""


def test_the_batch_keeps_its_rows_through_the_write(project):
    project.model("replaced", MODEL)
    project.dbt("run", "--vars", "{first: 1}")
    log = project.root / "logs" / "dbt.log"
    before = log.stat().st_size
    project.dbt("run", "--vars", "{first: 4}")

    rows = project.rows("select id, op from {schema}.replaced order by id")
    assert [tuple(r) for r in rows] == [(4, "I"), (5, "I"), (6, "I")]
    # The load, then the second run's upserts and its deletes.
    assert len(project.completed_instants("replaced")) == 3
    second_run = log.read_text()[before:]
    assert f"staged in memory as {project.schema}__replaced__lakehouse_batch" in second_run
    schema_dir = project.lake_dir / "warehouse" / f"{project.schema}.db"
    assert not list(schema_dir.glob("*__lakehouse_*"))  # no scratch table on the lake
    assert held_batches() == []


def test_a_batch_whose_query_fails_is_not_kept(project):
    """The query fails part-way through staging (a row fails its assertion):
    what it computed is freed, and the run fails with Spark's error."""
    project.model(
        "failing",
        """
        {{ config(materialized='incremental', unique_key='id') }}
        select id, assert_true(id < 5, 'id 5 came') as checked
        from (select explode(sequence(1, 9)) as id)
        """,
    )
    result = project.dbt("run", expect_ok=False)
    assert "id 5 came" in str(result.result.results[0].message)
    assert held_batches() == []


def held_batches() -> list[str]:
    """The RDDs the JVM keeps that a staged batch made (by the call site the
    adapter names them with):
    none once a run is over, whatever other tests in this process did."""
    rdds = spark().sparkContext._jsc.sc().getPersistentRDDs().values().iterator()
    described = []
    while rdds.hasNext():
        described.append(rdds.next().toString())
    return [rdd for rdd in described if "lakehouse staging" in rdd]
