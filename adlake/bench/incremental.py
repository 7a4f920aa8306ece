"""Benchmark: an incremental commit read costs what changed, not what the table holds.

For each upstream size N (default 5,000,000 and 50,000,000 billing events over
30 days), in a lake of its own, one process loads an upstream table
(merge-on-read unless --upstream-type says cow) and builds the aggregates on
it; then another process (a fresh JVM: the load's is slower at everything for
a while) corrects a fixed number of its records (default 50,000), all in the
last 3 days (as late events and corrections are in the ads feed), twice: a
warm-up round, then the measured one. It measures:

- rows and bytes the incremental read (lake_changes) scans, against a snapshot
  read of the same table (Spark's own scan metrics);
- wall time of the downstream aggregate's incremental dbt run against its full
  recompute (--full-refresh), for both exact patterns: recompute the groups
  the changes touched (lake_changed_keys), and add the changes' signed values
  to the stored rows (lake_signed_changes);
- where an incremental run's time goes: reading the changes (the statements
  that read hudi_table_changes), the write statement (the model's query and
  the Hudi commit), the adapter's other statements (settings, timeline
  look-ups), and dbt itself (the rest of the wall time).

Across sizes it prints how each time grew, and the upstream size at which the
incremental run overtakes the full recompute (each time fitted as a straight
line through the measured sizes). It prints the figures; it asserts nothing
(a clock is no test).

With --upstream-type cow the upstream is copy-on-write: its writer rewrites
each touched file group and, with CDC on, writes the changes' before and after
images beside it at commit time, so the downstream's read of the changes costs
what changed. A merge-on-read upstream (the default) writes only log files, and
Hudi's CDC read makes the before images by merging each touched file group,
which grows with the records a file group holds.

    python -m adlake.bench.incremental [--rows 5000000 --rows 50000000] [--change-rows 50000]
                                       [--upstream-type mor|cow]

(or `adlake-bench-incremental ...`).
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

from adlake import ROOT
from adlake.bench import children
from adlake.bench.profile_batch import statement_kind

UPSTREAM = """
{{ config(materialized='incremental', table_type=var('upstream_type'), unique_key='event_id',
          precombine_key='version',
          partition_by='event_date', incremental_strategy='upsert',
          hudi_options={'hoodie.table.cdc.enabled': true,
                        'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER'}) }}
{#- No compaction on merge-on-read: the corrections stay in log files, as a batch's do before compaction. #}
{% if var('upstream_type') == 'mor' %}{{ config(compaction={'mode': 'off'}) }}{% endif %}
select
    id as event_id,
    {{ var('version') }} as version,
    id % 5000 as account_id,
    (id * 7919 % 1000000) + {{ var('version') }} as cost_micros,
    date_add(date'2026-10-01', cast(id % 30 as int)) as event_date
{#- range() generates the ids in parallel; an exploded sequence() would build
    them as one array in one row, which 50M ids outgrow. #}
from range(1, {{ var('rows') }} + 1)
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

AGGREGATES = {
    "daily_spend": "recompute touched groups (lake_changed_keys)",
    "daily_spend_deltas": "apply deltas (lake_signed_changes)",
}


class Statements:
    """A dbt event callback: each SQL statement's text and seconds."""

    def __init__(self) -> None:
        self.done: list[tuple[str, float]] = []
        self._open: dict[str, str] = {}

    def __call__(self, msg) -> None:
        if msg.info.name == "SQLQuery":
            self._open[msg.info.thread] = msg.data.sql
        elif msg.info.name == "SQLQueryStatus" and msg.info.thread in self._open:
            self.done.append((self._open.pop(msg.info.thread), float(msg.data.elapsed)))


def split(statements: list[tuple[str, float]], wall: float) -> dict[str, float]:
    """Where a model run's wall time went."""
    parts = {"changes read": 0.0, "write (query and Hudi commit)": 0.0, "other statements": 0.0}
    for sql, seconds in statements:
        if "hudi_table_changes" in sql:
            parts["changes read"] += seconds
        elif statement_kind(sql) == "write":
            parts["write (query and Hudi commit)"] += seconds
        else:
            parts["other statements"] += seconds
    parts["dbt"] = max(0.0, wall - sum(parts.values()))
    return parts


def dbt(project: Path, *args: str, recorder: Statements | None = None) -> float:
    started = time.time()
    result = dbtRunner(callbacks=[recorder] if recorder else []).invoke(
        [
            "--log-level",
            "warn",
            *args,
            "--project-dir",
            str(project),
            "--profiles-dir",
            str(project),
        ]
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


def write_bench_project(project: Path, lake: Path, models: dict[str, str], **output) -> None:
    """A benchmark's dbt project: its models, and a profile of the embedded
    session on `lake` (12 GiB of driver memory), with `output`'s extra keys."""
    from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle

    (project / "models").mkdir(parents=True, exist_ok=True)
    (project / "dbt_project.yml").write_text(
        yaml.safe_dump({"name": "bench", "version": "1.0", "config-version": 2, "profile": "bench"})
    )
    target = {
        "type": "lakehouse",
        "method": "session",
        "schema": "bench",
        "threads": 1,
        "lake_dir": str(lake),
        "hudi_jar": str(hudi_bundle.locate(cache_dir=ROOT / ".cache" / "jars")),
        "spark_conf": {"spark.driver.memory": "12g"},
        **output,
    }
    profile = {"bench": {"target": "local", "outputs": {"local": target}}}
    (project / "profiles.yml").write_text(yaml.safe_dump(profile))
    for name, sql in models.items():
        (project / "models" / f"{name}.sql").write_text(sql)


def write_project(project: Path, lake: Path) -> None:
    models = {
        "events": UPSTREAM,
        "daily_spend": DAILY_SPEND,
        "daily_spend_deltas": DAILY_SPEND_DELTAS,
    }
    write_bench_project(project, lake, models)


def load_size(rows: int, change_rows: int, upstream_type: str, work: Path) -> dict:
    """Load an upstream of `rows` records and build both aggregates on it."""
    project = work / "project"
    write_project(project, work / "lake")
    first_vars = json.dumps({**_size_vars(rows, change_rows, upstream_type), "version": 1})
    load = dbt(project, "run", "--select", "events", "--vars", first_vars)
    for model in AGGREGATES:
        dbt(project, "run", "--select", model, "--vars", first_vars)
    return {"load_s": load}


def measure_size(rows: int, change_rows: int, upstream_type: str, work: Path) -> dict:
    """Correct the loaded upstream and time both aggregates' runs: a warm-up
    round, then the measured one. This runs in a process of its own, after the
    load's: a JVM that has just written 50M records is slower at everything
    for a while, which would charge the load to the incremental run."""
    project = work / "project"
    base = _size_vars(rows, change_rows, upstream_type)
    dbt(
        project, "show", "--inline", "select 1"
    )  # starts this process's Spark session, with Hudi in it
    for version in (2, 3):  # the same records corrected twice; only the second round counts
        round_vars = json.dumps({**base, "version": version})
        before = _latest_completion()
        change = dbt(project, "run", "--select", "events", "--vars", round_vars)
        figures: dict[str, dict] = {}
        for model in AGGREGATES:
            recorder = Statements()
            incremental = dbt(
                project, "run", "--select", model, "--vars", round_vars, recorder=recorder
            )
            same = _equals_recompute(model)
            full = dbt(project, "run", "--select", model, "--full-refresh", "--vars", round_vars)
            figures[model] = {
                "incremental_s": incremental,
                "full_s": full,
                "equals_recompute": same,
                "incremental_split_s": split(recorder.done, incremental),
            }

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate().newSession()
    end = _latest_completion()
    inc_rows, inc_bytes = scan_metrics(
        spark,
        f"select * from hudi_table_changes('bench.events', 'latest_state', '{before}', '{end}')",
    )
    snap_rows, snap_bytes = scan_metrics(spark, "select * from bench.events")
    spark.stop()
    return {
        "rows": rows,
        "upstream_type": upstream_type,
        "corrected": inc_rows,
        "change_s": change,
        "read": {"incremental": [inc_rows, inc_bytes], "snapshot": [snap_rows, snap_bytes]},
        "aggregates": figures,
    }


def _size_vars(rows: int, change_rows: int, upstream_type: str) -> dict:
    # Corrections fall in 3 of 30 days (a tenth of the records): 1 in `every` of those.
    every = max(1, round(rows / 10 / change_rows))
    return {"rows": rows, "every": every, "upstream_type": upstream_type}


def print_size(size: dict) -> None:
    (inc_rows, inc_bytes), (snap_rows, snap_bytes) = (
        size["read"]["incremental"],
        size["read"]["snapshot"],
    )
    print(
        f"\nupstream ({size['upstream_type'].upper()}): {size['rows']:,} records; "
        f"corrected: {size['corrected']:,} (last 3 of 30 days); "
        f"load {size['load_s']:.1f} s, correction upsert {size['change_s']:.1f} s"
    )
    print(f"{'':28}{'rows read':>14}{'bytes read':>16}")
    print(f"{'incremental read':28}{inc_rows:>14,}{inc_bytes:>16,}")
    print(f"{'snapshot read':28}{snap_rows:>14,}{snap_bytes:>16,}")
    print(
        f"{'incremental / snapshot':28}{inc_rows / max(snap_rows, 1):>14.2%}{inc_bytes / max(snap_bytes, 1):>16.2%}"
    )
    print(
        f"{'aggregate':46}{'incremental':>12}{'full':>8}{'ratio':>7}  equals a recompute; incremental split"
    )
    for model, f in size["aggregates"].items():
        parts = ", ".join(f"{name} {s:.1f}" for name, s in f["incremental_split_s"].items())
        print(
            f"{AGGREGATES[model]:46}{f['incremental_s']:>10.1f} s{f['full_s']:>6.1f} s"
            f"{f['incremental_s'] / f['full_s']:>7.0%}  {f['equals_recompute']}; {parts}"
        )


def crossover(sizes: list[dict], model: str) -> float | None:
    """The upstream size at which the incremental run takes as long as the full
    one, each fitted as a line through the smallest and largest size; None when
    the lines do not cross at a positive size."""
    small, large = sizes[0], sizes[-1]
    rows = large["rows"] - small["rows"]
    slope = {
        kind: (large["aggregates"][model][kind] - small["aggregates"][model][kind]) / rows
        for kind in ("incremental_s", "full_s")
    }
    gap = small["aggregates"][model]["incremental_s"] - small["aggregates"][model]["full_s"]
    closing = slope["full_s"] - slope["incremental_s"]
    if closing <= 0:
        return None
    at = small["rows"] + gap / closing
    return at if at > 0 else None


def print_growth(sizes: list[dict]) -> None:
    small, large = sizes[0], sizes[-1]
    print(
        f"\nfrom {small['rows']:,} to {large['rows']:,} upstream records "
        f"({large['rows'] / small['rows']:.0f}x), the same {small['corrected']:,}-record change:"
    )
    for model in AGGREGATES:
        a, b = small["aggregates"][model], large["aggregates"][model]
        at = crossover(sizes, model)
        where = (
            "does not cross"
            if at is None
            else (
                f"incremental is faster from about {at:,.0f} records"
                if at > small["rows"] or a["incremental_s"] > a["full_s"]
                else "incremental is faster at every measured size"
            )
        )
        print(
            f"  {AGGREGATES[model]}: incremental {b['incremental_s'] / a['incremental_s']:.2f}x, "
            f"full {b['full_s'] / a['full_s']:.2f}x; {where}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows",
        type=int,
        action="append",
        help="upstream records; repeat for several sizes (default 5000000 and 50000000)",
    )
    parser.add_argument(
        "--change-rows", type=int, default=50_000, help="records corrected (default 50000)"
    )
    parser.add_argument(
        "--upstream-type",
        choices=["mor", "cow"],
        default="mor",
        help="the upstream's table type (default mor); see the module's docstring",
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    # A child runs one phase of one size (see measure_size).
    parser.add_argument("--phase", choices=["load", "measure"], help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = sorted(args.rows or [5_000_000, 50_000_000])

    if args.phase:
        phase = load_size if args.phase == "load" else measure_size
        children.report(phase(sizes[0], args.change_rows, args.upstream_type, args.work))
        return
    measured = []
    for rows in sizes:
        # Each size gets a lake of its own, and each phase a JVM of its own.
        work = Path(tempfile.mkdtemp(prefix="bench_incremental_"))
        try:
            figures = {}
            for phase in ("load", "measure"):
                figures.update(_child(phase, rows, args, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        measured.append(figures)
        print_size(measured[-1])
    if len(measured) > 1:
        print_growth(measured)
    if args.json:
        args.json.write_text(json.dumps(measured, indent=1))


def _child(phase: str, rows: int, args: argparse.Namespace, work: Path) -> dict:
    child_args = ["--phase", phase, "--work", str(work), "--rows", str(rows)]
    child_args += ["--change-rows", str(args.change_rows), "--upstream-type", args.upstream_type]
    return children.run(__spec__.name, child_args, f"{rows:,} records, {phase}: failed")


def _equals_recompute(model: str) -> bool:
    """The aggregate's non-empty groups equal a recompute from the upstream."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate().newSession()
    return (
        spark.sql(
            "select count(*) from (select event_date, account_id, sum(cost_micros) s, count(*) n from bench.events "
            f"group by 1, 2) f full join (select * from bench.{model} where events != 0) d using (event_date, account_id) "
            "where f.s is null or d.spend_micros is null or f.s != d.spend_micros or f.n != d.events"
        ).collect()[0][0]
        == 0
    )


def _latest_completion() -> str:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate().newSession()
    rows = spark.sql("call show_commits(table => 'bench.events', limit => 100)").collect()
    return max(r.state_transition_time for r in rows)


if __name__ == "__main__":
    main()
