"""The batch profiler's parts (adlake.bench.profile_batch and spark_jobs): the
phase of each Spark job from Hudi's own descriptions (as Hudi 1.2 writes them,
copied from a real event log), the kind of each statement dbt sends, and the
reading of an event log."""

import json

import pytest

from adlake.bench import profile_batch, spark_jobs


@pytest.mark.parametrize(
    "description, phase",
    [
        ("SparkRDDWriteClient:Committing stats: t", "hudi write"),
        ("SparkUpsertDeltaCommitActionExecutor:Building workload profile:t", "hudi write"),
        ("SparkUpsertDeltaCommitPartitioner:Getting small files from partitions: t", "hudi write"),
        ("HoodieWriteHelper:Tagging: t", "index lookup"),
        ("HoodieIndexUtils:Load latest base files from all partitions: t", "index lookup"),
        (
            "SparkHoodieBackedTableMetadataWriter:Bulk inserting at 00000000000000001 into metadata table t_metadata",
            "metadata table",
        ),
        (
            "SparkMetadataTableSecondaryDeltaCommitActionExecutor:Building workload profile:t_metadata",
            "metadata table",
        ),
        (
            "HoodieCompactionPlanGenerator:Looking for files to compact: t_metadata",
            "metadata table",
        ),
        ("DirectWriteMarkers:Obtaining marker files for all created, merged paths", "markers"),
        (
            "FSUtils:Parallel listing paths file:/w/t/.hoodie/metadata/.hoodie/.temp/20261124130806605/files",
            "markers",
        ),
        ("HoodieCompactionPlanGenerator:Looking for files to compact: t", "compaction"),
        ("RunCompactionActionExecutor:Preparing compaction metadata: t", "compaction"),
        (
            "FileSystemBackedTableMetadata:Listing all files in 4 partitions from dwd_billing_events",
            "file listing",
        ),
        (
            "FileSystemBackedTableMetadata recursive listing step 1:Listing all partitions on t with prefix",
            "file listing",
        ),
        ("select sum(cost) from t", None),
        (None, None),
    ],
)
def test_a_job_is_put_in_its_hudi_phase(description, phase):
    assert spark_jobs.hudi_phase(description) == phase


def job(job_id, description, execution, start=0.0, end=1.0):
    return spark_jobs.Job(job_id, start, end, description, execution)


def test_an_undescribed_job_takes_the_phase_before_it_in_its_statement():
    jobs = [
        job(
            1,
            "SparkMetadataTableSecondaryDeltaCommitActionExecutor:Building workload profile:t_metadata",
            "7",
        ),
        job(2, None, "7"),
        job(3, None, "8"),  # another statement, with no Hudi job before it: a query
        job(4, None, None),
        job(5, "FileSystemBackedTableMetadata:Listing all files in 1 partitions from t", "9"),
        job(6, None, "9"),  # the query that listed them
    ]
    spark_jobs.assign_phases(jobs)
    assert [j.phase for j in jobs] == [
        "metadata table",
        "metadata table",
        "query",
        "query",
        "file listing",
        "query",
    ]


def test_overlapping_jobs_are_counted_once():
    assert spark_jobs.covered_seconds([(0, 2), (1, 3), (5, 6), (5.5, 5.8)]) == 4


def test_jobs_are_read_from_an_event_log(tmp_path):
    events = [
        {
            "Event": "SparkListenerJobStart",
            "Job ID": 0,
            "Submission Time": 1000,
            "Properties": {
                "spark.job.description": "HoodieWriteHelper:Tagging: t",
                "spark.sql.execution.id": "3",
            },
        },
        {"Event": "SparkListenerJobStart", "Job ID": 1, "Submission Time": 1500, "Properties": {}},
        {"Event": "SparkListenerJobEnd", "Job ID": 0, "Completion Time": 2500},
        {"Event": "SparkListenerJobEnd", "Job ID": 1, "Completion Time": 1750},
        {
            "Event": "SparkListenerJobStart",
            "Job ID": 2,
            "Submission Time": 3000,
            "Properties": {},
        },  # never ended
    ]
    (tmp_path / "app-1.inprogress").write_text("".join(json.dumps(e) + "\n" for e in events))
    jobs = spark_jobs.read_jobs(tmp_path)
    assert [(j.job_id, j.seconds, j.phase) for j in jobs] == [
        (0, 1.5, "index lookup"),
        (1, 0.25, "query"),
    ]


@pytest.mark.parametrize(
    "sql, kind",
    [
        (
            '/* {"app": "dbt", "node_id": "model.adlake.x"} */\nset hoodie.datasource.write.operation = upsert',
            "set or reset",
        ),
        ("/* c */ merge into a using b on a.k = b.k when matched then update set *", "write"),
        ("/* c */\n\n  create table a using hudi as select 1 as k", "write"),
        ("create or replace temporary view v as select 1", "temporary view"),
        ("create table x (a int) using hudi", "other DDL"),
        ("describe table extended x", "describe or show"),
        ("call show_commits(table => 'x', limit => 1)", "hudi procedure"),
        ("with a as (select 1) select * from a", "query"),
    ],
)
def test_a_statement_is_known_by_its_first_word(sql, kind):
    assert profile_batch.statement_kind(sql) == kind


@pytest.mark.parametrize("scope", ["full", "changed"])
def test_a_profiled_build_checks_in_the_scope_asked(scope):
    assert profile_batch.with_scope("{dwd_compaction_mode: schedule}", scope) == (
        "{dwd_compaction_mode: schedule, lakehouse_test_scope: " + scope + "}"
    )


def test_a_profiled_build_without_checks_sets_no_test_scope():
    # Scope none builds the batch as continuous mode does, its data tests
    # left out of the build (they run later, in their own `dbt test`).
    assert profile_batch.with_scope("{dwd_compaction_mode: schedule}", "none") == (
        "{dwd_compaction_mode: schedule}"
    )
