"""Build the adlake warehouse on the embedded Spark, batch by batch, and summarise it.

`make run` calls this. Each batch is one `dbt build` (seeds, models, tests) run
in-process, so all batches share one Spark JVM. The first batch creates the
tables; later ones are incremental. Ends with rows per table and the latest
commit of each Hudi table, read from the tables themselves.

    python tools/run_warehouse.py [--batches N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

from dbt.cli.main import dbtRunner

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("ref", "ods", "dwd", "dws", "ads")
SCHEMA = "adlake"


def dbt_build(batch: int) -> str:
    """One `dbt build` for the batch; dbt's own output is kept to warnings and
    errors (the full log is logs/dbt.log). Returns a one-line tally."""
    args = [
        "--log-level", "warn",
        "build",
        "--project-dir", str(ROOT),
        "--profiles-dir", str(ROOT / "profiles"),
        "--vars", f"{{landed_through_batch: {batch}}}",
    ]
    result = dbtRunner().invoke(args)
    if not result.success:
        sys.exit(f"batch {batch}: dbt build failed; see {ROOT / 'logs' / 'dbt.log'}")
    statuses = Counter(str(r.status) for r in result.result.results)
    return ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))


def latest_commit(spark, table: str) -> str:
    rows = spark.sql(f"call show_commits(table => '{table}', limit => 1)").collect()
    if not rows:
        return "-"
    row = rows[0].asDict()
    return f"{row['commit_time']} {row['action']}"


def summary(elapsed: float) -> None:
    from pyspark.sql import SparkSession

    # The session dbt's adapter started in this process (a child: fresh table caches).
    spark = SparkSession.builder.getOrCreate().newSession()
    print(f"\n{'table':<42} {'rows':>8}  latest commit")
    for layer in LAYERS:
        schema = f"{SCHEMA}_{layer}"
        tables = sorted(r.tableName for r in spark.sql(f"show tables in {schema}").collect())
        # Hudi registers read-optimized (_ro) and real-time (_rt) views of each
        # merge-on-read table; they are the same data, so list the table once.
        for table in [t for t in tables if not t.endswith(("_ro", "_rt"))]:
            name = f"{schema}.{table}"
            rows = spark.table(name).count()
            provider = spark.sql(f"describe table extended {name}").where("col_name = 'Provider'").collect()
            is_hudi = bool(provider) and provider[0].data_type == "hudi"
            commit = latest_commit(spark, name) if is_hudi else "(parquet seed)"
            print(f"{name:<42} {rows:>8}  {commit}")
    print(f"\nelapsed: {elapsed:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=2, help="micro-batches to land (default 2)")
    args = parser.parse_args()

    os.chdir(ROOT)  # the lake (.lake/) lives in the project folder
    started = time.time()
    for batch in range(1, args.batches + 1):
        batch_started = time.time()
        tally = dbt_build(batch)
        print(f"batch {batch}/{args.batches} built in {time.time() - batch_started:.1f} s ({tally})", flush=True)
    summary(time.time() - started)


if __name__ == "__main__":
    main()
