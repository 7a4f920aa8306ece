"""A project whose every table is created the first time by a run that is
killed: a `table` model, an incremental model, a seed and a snapshot in each
of Hudi, Iceberg and Delta, twelve tables built at once by one `dbt build`
(one dbt thread each, all independent).

Three runs in a row, each a child process with the JDK's debugging agent
(tests/jvm_breakpoints.py):
1. **create in flight**: every thread is held where the session catalog is
   about to record its table (SessionCatalog.createTable: each format has
   written the table's folder, Delta and Iceberg their first commit for a
   CREATE TABLE AS SELECT), then the run is killed: twelve folders no catalog
   entry names, the state that made every later run fail (issue: the
   wedge);
2. **first write in flight**: the next run, held at each table's first commit
   (Hudi's commit of the write client, Delta's log write, Iceberg's snapshot
   commit), then killed;
3. the run that completes: every table holds what one uninterrupted build
   writes, and nothing the killed runs left is on disk.
The tests for a lake on the local disk and in a bucket share it: each kill is
one JVM held at the twelve points at once, so the three runs cost what three
builds of the project cost.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests import jvm_breakpoints
from tests.adapter.functional.crash.child_runs import ChildRun, query_rows
from tests.dbt_harness import DbtProject

FORMATS = ("hudi", "iceberg", "delta")
KINDS = ("table", "incremental", "seed", "snapshot")
IDS = 40
# Each kind's rows: id 1..IDS, value id * its factor.
FACTORS = {"table": 3, "incremental": 5, "seed": 7, "snapshot": 11}

# Where each thread is held: the moment its table's folder is written and the
# catalog not yet told; then the moment its first write commits.
# (Hudi's catalog records its tables by a call of its own, after it has
# written hoodie.properties and the empty timeline.)
CATALOG_RECORDS_TABLE = [
    "org.apache.spark.sql.catalyst.catalog.SessionCatalog.createTable",
    "org.apache.spark.sql.hudi.command.CreateHoodieTableCommand$.createTableInCatalog",
]
FIRST_COMMIT = [
    "org.apache.hudi.client.BaseHoodieWriteClient.commit(org.apache.hudi.table.HoodieTable,"
    "java.lang.String,java.lang.String,org.apache.hudi.common.model.HoodieCommitMetadata,"
    "org.apache.hudi.client.TableWriteStats,boolean)",
    "org.apache.spark.sql.delta.OptimisticTransactionImpl.doCommit",
    "org.apache.iceberg.SnapshotProducer.commit",
]


def node(kind: str, fmt: str) -> str:
    return f"{kind}_{fmt}"


def rows_sql(kind: str) -> str:
    return f"select id, id * {FACTORS[kind]} as value from range(1, {IDS + 1})"


def write_project(project: DbtProject) -> None:
    """The twelve nodes, built by twelve dbt threads."""
    for fmt in FORMATS:
        project.model(
            node("table", fmt),
            f"{{{{ config(materialized='table', file_format='{fmt}') }}}}\n{rows_sql('table')}",
        )
        project.model(
            node("incremental", fmt),
            f"{{{{ config(materialized='incremental', file_format='{fmt}', unique_key='id') }}}}\n"
            + rows_sql("incremental"),
        )
        seed_rows = "\n".join(f"{i},{i * FACTORS['seed']}" for i in range(1, IDS + 1))
        project.write(f"seeds/{node('seed', fmt)}.csv", f"id,value\n{seed_rows}\n")
        project.write(
            f"snapshots/{node('snapshot', fmt)}.sql",
            f"{{% snapshot {node('snapshot', fmt)} %}}\n"
            f"{{{{ config(target_schema='{project.schema}', unique_key='id', strategy='check',"
            f" check_cols='all', file_format='{fmt}') }}}}\n"
            f"{rows_sql('snapshot')}\n{{% endsnapshot %}}\n",
        )
    settings = yaml.safe_load((project.root / "dbt_project.yml").read_text())
    settings["snapshot-paths"] = ["snapshots"]
    settings["seeds"] = {"lake_test": {node("seed", fmt): {"+file_format": fmt} for fmt in FORMATS}}
    project.write("dbt_project.yml", yaml.safe_dump(settings))
    profiles = yaml.safe_load((project.root / "profiles.yml").read_text())
    output = profiles["lake_test"]["outputs"]["local"]
    output["threads"] = len(FORMATS) * len(KINDS)
    # The debugging agent, in the runs that are held and killed.
    output.setdefault("spark_conf", {}).update(jvm_breakpoints.PROFILE_JAVA_OPTIONS)
    project.write("profiles.yml", yaml.safe_dump(profiles))


def queries(schema: str) -> list[str]:
    return [
        f"select count(*), sum(value) from {schema}.{node(kind, fmt)}"
        for fmt in FORMATS
        for kind in KINDS
    ]


EXPECTED = [(IDS, FACTORS[kind] * IDS * (IDS + 1) // 2) for fmt in FORMATS for kind in KINDS]


def killed_while_held(
    project: DbtProject, methods: list[str], env: dict[str, str], tag: str
) -> str:
    """A `dbt build` of the project, killed once every node's thread is held
    at one of `methods`; what it printed."""
    run = ChildRun(
        project,
        1,
        1,
        "--command",
        "build",
        env={**env, **jvm_breakpoints.HELD_ENV},
        tag=tag,
    )
    try:
        with jvm_breakpoints.attach(run.log, run.process, methods) as held:
            held.wait(len(FORMATS) * len(KINDS), run.process, lambda: ended_nodes(run))
            # Killed while the threads are held: jdb's leaving lets them run on.
            run.kill()
    finally:
        run.kill()
    return run.output()


def ended_nodes(run: ChildRun) -> str:
    """dbt's lines for nodes that ended: a node's thread that ended is never
    held (an error: the output says which and why)."""
    ended = [line for line in run.output().splitlines() if re.search(r" of \d+ (OK|ERROR) ", line)]
    return "\n".join(ended) + ("\n" + run.output()[-5000:] if ended else "")


def kill_while_creating(project: DbtProject, env: dict[str, str]) -> str:
    write_project(project)
    return killed_while_held(project, CATALOG_RECORDS_TABLE, env, "_create")


def kill_while_first_writing(project: DbtProject, env: dict[str, str]) -> str:
    return killed_while_held(project, FIRST_COMMIT, env, "_first_commit")


def complete(project: DbtProject, env: dict[str, str]) -> ChildRun:
    """The run that completes, and the values of the twelve tables after it."""
    options = [arg for query in queries(project.schema) for arg in ("--query", query)]
    run = ChildRun(project, 1, 1, "--command", "build", *options, env=env, tag="_complete")
    assert run.finish() == 0, run.output()
    assert query_rows(run) == EXPECTED, run.output()
    return run


NOTE = re.compile(
    r"Lakehouse adapter: \w+\.(\w+) is not in the catalog.*?(Removed it|CREATE OR REPLACE)"
)
# Delta's and Iceberg's CREATE OR REPLACE take over what a killed CTAS committed.
TAKEN_OVER = {node(kind, fmt) for kind in ("table", "incremental") for fmt in ("iceberg", "delta")}


def found_by_next_run(output: str) -> tuple[set[str], set[str]]:
    """The tables whose leftovers a run removed, and those it took over."""
    notes = NOTE.findall(output)
    return (
        {table for table, how in notes if how == "Removed it"},
        {table for table, how in notes if how != "Removed it"},
    )


ALL_NODES = {node(kind, fmt) for kind in KINDS for fmt in FORMATS}


def leftover_names(folder: Path) -> list[str]:
    """Folders a removal or a scratch table left beside the tables."""
    return sorted(p.name for p in folder.iterdir() if "__lakehouse_" in p.name)
