"""Benchmark: an incremental commit read costs what changed, not what the table holds.

An upstream MOR table of N billing events (default 5,000,000) over 30 days gets
1% of its records corrected, all in the last 3 days (as late events and
corrections are in the ads feed). Then it measures, with Spark's own scan metrics:

- rows and bytes the incremental read (lake_changes) scans, against a snapshot
  read of the same table;
- wall time of the downstream aggregate's incremental dbt run against its full
  recompute (--full-refresh), for both exact patterns: recompute the groups
  the changes touched (lake_changed_keys), and add the changes' signed values
  to the stored rows (lake_signed_changes).

It prints the figures; it asserts nothing (a clock is no test).

    python tools/bench_incremental.py [--rows 5000000] [--changed 0.01]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import yaml
from dbt.cli.main import dbtRunner

ROOT = Path(__file__).resolve().parents[1]

UPSTREAM = """
{{ config(materialized='incremental', table_type='mor', unique_key='event_id', precombine_key='version',
          partition_by='event_date', incremental_strategy='upsert',
          compaction={'mode': 'off'},
          hudi_options={'hoodie.table.cdc.enabled': true,
                        'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER'}) }}
select
    id as event_id,
    {{ var('version') }} as version,
    id % 5000 as account_id,
    (id * 7919 % 1000000) + {{ var('version') }} as cost_micros,
    date_add(date'2026-10-01', cast(id % 30 as int)) as event_date
from (select explode(sequence(1, {{ var('rows') }})) as id)
{#- Corrections, like late events, hit the last 3 of 30 days: 1 in `every` of those. -#}
where {{ var('version') }} = 1 or (id % 30 >= 27 and floor(id / 30) % {{ var('every') }} = 0)
"""

DAILY_SPEND = """
{{ config(materialized='incremental', unique_key=['event_date', 'account_id'], delete_condition='events = 0') }}
with
changed_keys as (
    select * from {{ lake_changed_keys(ref('events'), ['event_date', 'account_id']) }}
),
events as (
    select * from {{ ref('events') }}
),
final as (
    select changed_keys.event_date, changed_keys.account_id,
           coalesce(sum(events.cost_micros), 0) as spend_micros, count(events.event_id) as events
    from changed_keys
    left join events
        on events.event_date = changed_keys.event_date and events.account_id = changed_keys.account_id
    group by changed_keys.event_date, changed_keys.account_id
)
select * from final
"""


# The same aggregate by deltas: the changes' signed values added to the stored
# rows of the touched groups; the upstream snapshot is not read at all.
DAILY_SPEND_DELTAS = """
{{ config(materialized='incremental', unique_key=['event_date', 'account_id']) }}
with
deltas as (
    select event_date, account_id, sum(_sign * cost_micros) as spend_micros, sum(_sign) as events
    from {{ lake_signed_changes(ref('events'), ['event_date', 'account_id', 'cost_micros']) }}
    group by event_date, account_id
)
{% if is_incremental() %}
select deltas.event_date, deltas.account_id,
       coalesce(stored.spend_micros, 0) + deltas.spend_micros as spend_micros,
       coalesce(stored.events, 0) + deltas.events as events
from deltas
left join {{ this }} as stored
    on stored.event_date = deltas.event_date and stored.account_id = deltas.account_id
{% else %}
select * from deltas
{% endif %}
"""

AGGREGATES = {"daily_spend": "recompute touched groups (lake_changed_keys)",
              "daily_spend_deltas": "apply deltas (lake_signed_changes)"}


def dbt(project: Path, *args: str) -> float:
    started = time.time()
    result = dbtRunner().invoke(
        ["--log-level", "warn", *args, "--project-dir", str(project), "--profiles-dir", str(project)]
    )
    if not result.success:
        raise SystemExit(f"dbt {' '.join(args)} failed: {result.exception}")
    return time.time() - started


def scan_metrics(spark, sql: str) -> tuple[int, int]:
    """(rows, bytes) the scans of `sql` read, from Spark's SQL metrics."""
    # Without adaptive execution the executed plan exposes its scan nodes.
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    execution = spark.sql(sql)._jdf.queryExecution()
    execution.toRdd().count()  # runs this very plan, so its metrics fill in
    plan = execution.executedPlan()
    rows = bytes_read = 0
    leaves = plan.collectLeaves()
    for i in range(leaves.size()):
        metrics = leaves.apply(i).metrics()
        for name, target in (("numOutputRows", "rows"), ("filesSize", "bytes")):
            if metrics.contains(name):
                value = metrics.apply(name).value()
                if target == "rows":
                    rows += value
                else:
                    bytes_read += value
    return rows, bytes_read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--changed", type=float, default=0.01, help="share of records corrected")
    args = parser.parse_args()
    # Corrections fall in 3 of 30 days: 1 in `every` records of those days.
    every = max(1, round(0.1 / args.changed))

    work = Path(tempfile.mkdtemp(prefix="bench_incremental_"))
    project = work / "project"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(yaml.safe_dump(
        {"name": "bench", "version": "1.0", "config-version": 2, "profile": "bench"}))
    from dbt.adapters.lakehouse import hudi_bundle

    (project / "profiles.yml").write_text(yaml.safe_dump({"bench": {"target": "local", "outputs": {"local": {
        "type": "lakehouse", "method": "session", "schema": "bench", "threads": 1,
        "lake_dir": str(work / "lake"), "hudi_jar": str(hudi_bundle.locate(cache_dir=ROOT / ".cache" / "jars")),
        "spark_conf": {"spark.driver.memory": "12g"}}}}}))
    (project / "models" / "events.sql").write_text(UPSTREAM)
    (project / "models" / "daily_spend.sql").write_text(DAILY_SPEND)
    (project / "models" / "daily_spend_deltas.sql").write_text(DAILY_SPEND_DELTAS)
    base = {"rows": args.rows, "every": every}
    first_vars, second_vars = json.dumps({**base, "version": 1}), json.dumps({**base, "version": 2})

    try:
        load = dbt(project, "run", "--select", "events", "--vars", first_vars)
        for model in AGGREGATES:
            dbt(project, "run", "--select", model, "--vars", first_vars)
        before = _latest_completion(project)
        change = dbt(project, "run", "--select", "events", "--vars", second_vars)
        timings = {}
        for model in AGGREGATES:
            incremental = dbt(project, "run", "--select", model, "--vars", second_vars)
            same = _equals_recompute(model)
            full = dbt(project, "run", "--select", model, "--full-refresh", "--vars", second_vars)
            timings[model] = (incremental, full, same)

        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate().newSession()
        end = _latest_completion(project)
        inc_rows, inc_bytes = scan_metrics(
            spark, f"select * from hudi_table_changes('bench.events', 'latest_state', '{before}', '{end}')")
        snap_rows, snap_bytes = scan_metrics(spark, "select * from bench.events")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"\nupstream: {args.rows:,} records; corrected: {args.rows // 10 // every:,} (last 3 of 30 days)")
    print(f"load {load:.1f} s, correction upsert {change:.1f} s")
    print(f"{'':28}{'rows read':>14}{'bytes read':>16}")
    print(f"{'incremental read':28}{inc_rows:>14,}{inc_bytes:>16,}")
    print(f"{'snapshot read':28}{snap_rows:>14,}{snap_bytes:>16,}")
    print(f"{'incremental / snapshot':28}{inc_rows / max(snap_rows, 1):>14.2%}{inc_bytes / max(snap_bytes, 1):>16.2%}")
    print(f"{'aggregate':46}{'incremental':>12}{'full':>8}{'ratio':>7}  equals a recompute")
    for model, (incremental, full, same) in timings.items():
        print(f"{AGGREGATES[model]:46}{incremental:>10.1f} s{full:>6.1f} s{incremental / full:>7.0%}  {same}")


def _equals_recompute(model: str) -> bool:
    """The aggregate's non-empty groups equal a recompute from the upstream."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate().newSession()
    return spark.sql(
        "select count(*) from (select event_date, account_id, sum(cost_micros) s, count(*) n from bench.events "
        f"group by 1, 2) f full join (select * from bench.{model} where events != 0) d using (event_date, account_id) "
        "where f.s is null or d.spend_micros is null or f.s != d.spend_micros or f.n != d.events"
    ).collect()[0][0] == 0


def _latest_completion(project: Path) -> str:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate().newSession()
    rows = spark.sql("call show_commits(table => 'bench.events', limit => 100)").collect()
    return max(r.state_transition_time for r in rows)


if __name__ == "__main__":
    main()
