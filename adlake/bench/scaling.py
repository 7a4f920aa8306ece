"""Benchmark: what a Hudi table costs as it grows, written through this adapter.

Four measurements on one generated fact table (billing events over 30 days,
upserted by event_id with the version as ordering field, partitioned by day,
with a bucket index of 4 buckets a day unless --index says otherwise), each
size and table type in a lake of its own, each phase in a JVM of its own (a
JVM that has just loaded millions of records is slower at everything for a
while, which would charge the load to what follows):

- **full refresh against an incremental micro-batch** (`full`): per size
  (default 1M, 5M, 10M events, merge-on-read), the full refresh that builds
  the table, then micro-batches upserted into it: a warm-up, then a batch of
  1% of the table (half new events, half corrections), then a fixed batch (1%
  of the smallest size) whose time across sizes shows how an incremental run
  grows with the table;
- **commit reads against snapshot scans** (same runs): rows and bytes Spark's
  scans read for the fixed batch's changes (`hudi_table_changes`, what
  `lake_changes` reads) against a snapshot read of the table;
- **merge-on-read against copy-on-write** (`mor_cow`): on one size (default
  5M), the upsert time of a 1% batch of corrections, and the time of a
  snapshot aggregate before and after the merge-on-read table's compaction;
- **append against upsert** (`append`): rows per second writing a batch of new
  log rows (default 1M) into a table that holds as many, with
  `incremental_strategy='append'` (Hudi insert: no index lookup, no dedup) and
  with upserts by key.

It prints the figures and, with --json, writes them; it asserts no time.

    python -m adlake.bench.scaling [--sizes 1000000,5000000,10000000] [--mor-cow-size 5000000]
                                   [--append-rows 1000000] [--parts full,mor_cow,append]
                                   [--index bucket|simple|bloom|default] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from adlake.bench import children
from adlake.bench.incremental import dbt, scan_metrics, write_bench_project

# Batch 0 is the full build: events 1..rows at version 1. Batch k >= 1 brings
# `batch_rows` events: half new ones (after every earlier batch's) and half
# corrections (version k + 1) of events spread over the table; `new_share` 0
# makes it corrections only. Event i falls on day i % 30, so the corrections
# are taken as whole runs of 30 consecutive events: every day gets its share
# (a filter on i alone, i % stride, would hit only the days that the stride's
# common factors with 30 allow: 3 of 30 for a stride of 100).
EVENTS = """
{#- (Defaults: dbt parses every model for any command, with or without these vars.) #}
{#- Merge-on-read: no compaction, unless plan_after says after how many delta
    commits a write plans one (lake_compact then runs it). #}
{%- set plan_after = var('plan_after', 0) %}
{{ config(materialized='incremental', table_type=var('table_type', 'mor'), unique_key='event_id',
          precombine_key='version', partition_by='event_date',
          index=none if var('index', 'default') == 'default'
              else {'type': 'bucket', 'buckets': var('buckets')} if var('index') == 'bucket'
              else {'type': var('index')},
          compaction=none if var('table_type', 'mor') == 'cow'
              else {'mode': 'schedule', 'delta_commits': plan_after} if plan_after
              else {'mode': 'off'}) }}
{%- set rows, batch, batch_rows = var('rows', 0), var('batch', 0), var('batch_rows', 0) %}
{%- set new = (batch_rows * var('new_share', 0.5)) | int %}
{%- set corrected = batch_rows - new %}
with ids as (
{%- if batch == 0 %}
    select id, 1 as version from range(1, {{ rows }} + 1)
{%- else %}
    select id, 1 as version
    from range({{ rows + (batch - 1) * new + 1 }}, {{ rows + batch * new + 1 }})
    union all
    select id, {{ batch + 1 }} as version
    from range(1, {{ rows }} + 1)
    where (id div 30) % {{ (rows // [corrected, 1] | max) }} = {{ batch }}
{%- endif %}
)
select
    id as event_id,
    version,
    id % 5000 as account_id,
    (id * 7919 % 1000000) + version as cost_micros,
    date_add(date'2026-10-01', cast(id % 30 as int)) as event_date
from ids
"""

# The events table's buckets a day with --index bucket (the default): a
# bucket index hashes each key to its file group, so an upsert looks nothing
# up, whatever the table holds. Hudi's own index (simple) reads the keys of
# every partition the batch touches, and the corrections here touch all 30 days.
BUCKETS = 4

# Log rows for append against upsert: batch k writes `rows` new rows.
LOGS = """
{{ config(materialized='incremental', incremental_strategy=var('strategy', 'append'),
          unique_key='log_id' if var('strategy', 'append') == 'upsert' else none,
          partition_by='log_date') }}
{%- set batch, rows = var('batch', 0), var('rows', 0) %}
select
    id as log_id,
    id % 5000 as account_id,
    concat('request ', id) as message,
    date_add(date'2026-10-01', cast(id % 30 as int)) as log_date
from range({{ batch * rows + 1 }}, {{ (batch + 1) * rows + 1 }})
"""


def write_project(project: Path, lake: Path) -> None:
    write_bench_project(project, lake, {"events": EVENTS, "logs": LOGS})


def _spark():
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate().newSession()


def _latest_completion(table: str) -> str:
    rows = _spark().sql(f"call show_commits(table => '{table}', limit => 100)").collect()
    return max(r.state_transition_time for r in rows)


def _timed_query(sql: str) -> tuple[float, list]:
    started = time.time()
    rows = _spark().sql(sql).collect()
    return time.time() - started, [tuple(r) for r in rows]


# --- the phases, each in a child process ---------------------------------------


def events_vars(p: dict, batch: int, batch_rows: int, new_share=0.5) -> str:
    return json.dumps(
        {
            "table_type": p["table_type"],
            "rows": p["rows"],
            "plan_after": p.get("plan_after", 0),
            "index": p["index"],
            "buckets": p.get("buckets", BUCKETS),
            "batch": batch,
            "batch_rows": batch_rows,
            "new_share": new_share,
        }
    )


def load(project: Path, p: dict) -> dict:
    """The full refresh that builds the table."""
    seconds = dbt(
        project,
        "run",
        "--select",
        "events",
        "--full-refresh",
        "--vars",
        events_vars(p, 0, 0),
    )
    return {"full_refresh_s": seconds}


def micro_batches(project: Path, p: dict) -> dict:
    """A warm-up batch, a 1% batch, then the fixed batch; the scans of the
    fixed batch's changes against the snapshot's."""
    rows = p["rows"]

    def batch(number: int, batch_rows: int) -> float:
        return dbt(
            project, "run", "--select", "events", "--vars", events_vars(p, number, batch_rows)
        )

    percent = max(1, rows // 100)
    warmup = batch(1, percent)
    one_percent = batch(2, percent)
    before = _latest_completion("bench.events")
    fixed = batch(3, p["fixed_rows"])
    end = _latest_completion("bench.events")
    spark = _spark()
    change_rows, change_bytes = scan_metrics(
        spark,
        f"select * from hudi_table_changes('bench.events', 'latest_state', '{before}', '{end}')",
    )
    snapshot_rows, snapshot_bytes = scan_metrics(spark, "select * from bench.events")
    return {
        "warmup_batch_s": warmup,
        "one_percent_rows": percent,
        "one_percent_batch_s": one_percent,
        "fixed_rows": p["fixed_rows"],
        "fixed_batch_s": fixed,
        "commit_read": {"rows": change_rows, "bytes": change_bytes},
        "snapshot_read": {"rows": snapshot_rows, "bytes": snapshot_bytes},
    }


AGGREGATE = "select event_date, sum(cost_micros), count(*) from bench.events group by event_date"


def upserts_and_reads(project: Path, p: dict) -> dict:
    """A warm-up batch of corrections, the measured one, then a snapshot
    aggregate's time; on merge-on-read again after compacting (the plan the
    measured upsert made, as the warehouse's writes plan theirs)."""
    percent = max(1, p["rows"] // 100)
    figures: dict = {}
    for number, name in ((1, "warmup_upsert_s"), (2, "upsert_s")):
        batch_vars = events_vars(p, number, percent, new_share=0)
        figures[name] = dbt(project, "run", "--select", "events", "--vars", batch_vars)
    _timed_query(AGGREGATE)  # warms the read path
    figures["read_s"], before = _timed_query(AGGREGATE)
    if p["table_type"] == "mor":
        started = time.time()
        dbt(project, "run-operation", "lake_compact", "--args", "{model: events}")
        figures["compaction_s"] = time.time() - started
        commits = _spark().sql("call show_commits(table => 'bench.events', limit => 100)")
        if not [r for r in commits.collect() if r.action == "commit"]:
            raise SystemExit("lake_compact left no compaction commit on the merge-on-read table")
        _timed_query(AGGREGATE)
        figures["read_after_compaction_s"], after = _timed_query(AGGREGATE)
        if sorted(after) != sorted(before):
            raise SystemExit("the aggregate changed with the compaction")
    figures["upserted_rows"] = percent
    return figures


def logs(project: Path, p: dict) -> dict:
    """Rows per second of a batch of new log rows, after a warm-up batch."""
    seconds = []
    for number in (0, 1):
        args = json.dumps({"strategy": p["strategy"], "rows": p["rows"], "batch": number})
        seconds.append(dbt(project, "run", "--select", "logs", "--vars", args))
    count = _spark().sql("select count(*) from bench.logs").collect()[0][0]
    if count != 2 * p["rows"]:
        raise SystemExit(f"logs holds {count} rows, not {2 * p['rows']}")
    return {"batch_s": seconds[1], "rows": p["rows"], "rows_per_s": p["rows"] / seconds[1]}


PHASES = {
    "load": load,
    "micro_batches": micro_batches,
    "upserts_and_reads": upserts_and_reads,
    "logs": logs,
}


def child_main(phase: str, work: Path, params: dict) -> None:
    project = work / "project"
    if not project.exists():
        write_project(project, work / "lake")
    figures = PHASES[phase](project, params)
    children.report(figures)


def run_phase(phase: str, work: Path, params: dict) -> dict:
    args = children.phase_arguments(phase, work, params)
    return children.run(__spec__.name, args, f"{phase} {params}: failed; see {work}")


def in_own_lake(phases: list[tuple[str, dict]], keep: bool = False) -> dict:
    """Runs the phases, in order, in one fresh lake; each in its own JVM."""
    work = Path(tempfile.mkdtemp(prefix="bench_scaling_"))
    figures: dict = {}
    try:
        for phase, params in phases:
            figures.update(run_phase(phase, work, params))
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return figures


# --- the parts -------------------------------------------------------------------


def full_against_incremental(sizes: list[int], index: str) -> dict:
    fixed = max(1, min(sizes) // 100)
    measured = []
    for rows in sizes:
        params = {"table_type": "mor", "rows": rows, "fixed_rows": fixed, "index": index}
        figures = in_own_lake([("load", params), ("micro_batches", params)])
        figures["rows"] = rows
        figures["one_percent_over_full"] = (
            figures["one_percent_batch_s"] / figures["full_refresh_s"]
        )
        measured.append(figures)
        print(
            f"{rows:>12,} events: full refresh {figures['full_refresh_s']:.1f} s; "
            f"1% batch ({figures['one_percent_rows']:,}) {figures['one_percent_batch_s']:.1f} s "
            f"({figures['one_percent_over_full']:.3f} of the full refresh); "
            f"fixed batch ({fixed:,}) {figures['fixed_batch_s']:.1f} s; commit read "
            f"{figures['commit_read']['rows']:,} rows / {figures['commit_read']['bytes']:,} B, "
            f"snapshot {figures['snapshot_read']['rows']:,} rows / "
            f"{figures['snapshot_read']['bytes']:,} B",
            flush=True,
        )
    small, large = measured[0], measured[-1]
    return {
        "index": index,
        "sizes": measured,
        "fixed_batch_growth": large["fixed_batch_s"] / small["fixed_batch_s"],
        "table_growth": large["rows"] / small["rows"],
    }


def mor_against_cow(rows: int, index: str) -> dict:
    types = {}
    for table_type in ("mor", "cow"):
        # The measured upsert (the third delta commit) plans the compaction.
        params = {"table_type": table_type, "rows": rows, "plan_after": 3, "index": index}
        types[table_type] = in_own_lake([("load", params), ("upserts_and_reads", params)])
        print(f"{table_type}, {rows:,} events: {types[table_type]}", flush=True)
    return {
        "rows": rows,
        "index": index,
        "types": types,
        "cow_over_mor_upsert": types["cow"]["upsert_s"] / types["mor"]["upsert_s"],
    }


def append_against_upsert(rows: int) -> dict:
    strategies = {}
    for strategy in ("append", "upsert"):
        params = {"strategy": strategy, "rows": rows}
        strategies[strategy] = in_own_lake([("logs", params)])
        print(f"{strategy}: {strategies[strategy]['rows_per_s']:,.0f} rows/s", flush=True)
    return {
        "rows": rows,
        "strategies": strategies,
        "append_over_upsert_throughput": strategies["append"]["rows_per_s"]
        / strategies["upsert"]["rows_per_s"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000,10000000")
    parser.add_argument("--mor-cow-size", type=int, default=5_000_000)
    parser.add_argument("--append-rows", type=int, default=1_000_000)
    parser.add_argument("--parts", default="full,mor_cow,append")
    parser.add_argument(
        "--index",
        choices=("bucket", "simple", "bloom", "default"),
        default="bucket",
        help=f"the events table's index (default bucket, {BUCKETS} buckets a day; "
        "default: none set, Hudi's own)",
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    children.add_phase_arguments(parser, PHASES)
    args = parser.parse_args(argv)
    if args.phase:
        child_main(args.phase, args.work, json.loads(args.params))
        return
    parts = args.parts.split(",")
    results: dict = {}
    if "full" in parts:
        sizes = sorted(int(s) for s in args.sizes.split(","))
        results["full_against_incremental"] = full_against_incremental(sizes, args.index)
    if "mor_cow" in parts:
        results["mor_against_cow"] = mor_against_cow(args.mor_cow_size, args.index)
    if "append" in parts:
        results["append_against_upsert"] = append_against_upsert(args.append_rows)
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
