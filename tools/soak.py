"""Soak: many micro-batches through the warehouse in one long-running process,
with the invariants checked after every batch and the lake's growth measured.

Each batch is landed and built with one `dbt build` (every data test of the
project: costs conserved layer to layer, keys unique, facts joined to their
dimensions, landed = valid + quarantined + held, ...); a failing test stops the
soak with a non-zero exit. After each batch it prints:

- the active timeline of dwd_billing_events (instants not yet archived) and
  the largest number of data files in one of its partitions: compaction,
  cleaning and archiving must keep both bounded, whatever the batch count;
- the resident memory of the Spark JVM and of this Python process, and the
  JVM's heap in use after a garbage collection: a long-running process must
  stay flat.

It ends with the first and last figures side by side, and the spend in ADS
against the generator's truth. Its lake is a fresh folder of its own.

    python tools/soak.py [--batches 50] [--events-per-batch 500] [--seed 17] [--lake DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from generate_billing import generate  # noqa: E402
from landing import land_batch  # noqa: E402

SCHEMA = "soak"
COMPLETED = re.compile(r"^\d+_\d+\.\w+$")


def write_profile(folder: Path, lake: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    profile = {"adlake": {"target": "soak", "outputs": {"soak": {
        "type": "lakehouse", "method": "session", "schema": SCHEMA, "lake_dir": str(lake), "threads": 1}}}}
    (folder / "profiles.yml").write_text(yaml.safe_dump(profile))


def dbt_build(profiles: Path, work: Path) -> None:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke([
        "--log-level", "warn", "build", "--project-dir", str(ROOT), "--profiles-dir", str(profiles),
        "--target-path", str(work / "target"), "--log-path", str(work / "logs"),
    ])
    if not result.success:
        sys.exit(f"soak: dbt build failed; see {work / 'logs' / 'dbt.log'}")


def table_growth(table_dir: Path) -> tuple:
    """(active completed instants, most data files in one partition)."""
    timeline = table_dir / ".hoodie" / "timeline"
    active = sum(1 for p in timeline.iterdir() if COMPLETED.match(p.name))
    partitions = [p for p in table_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    files = max((sum(1 for f in p.iterdir() if not f.name.startswith(".") or ".log." in f.name)
                 for p in partitions), default=0)
    return active, files


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def jvm_figures(spark) -> tuple:
    """(JVM resident MiB, heap MiB in use after a GC)."""
    jvm = spark.sparkContext._jvm
    runtime = jvm.java.lang.Runtime.getRuntime()
    jvm.java.lang.System.gc()
    heap = (runtime.totalMemory() - runtime.freeMemory()) / 2**20
    return rss_mib(int(jvm.java.lang.ProcessHandle.current().pid())), heap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--events-per-batch", type=int, default=500)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--lake", type=Path, help="work folder (default: a new temporary folder, removed after)")
    args = parser.parse_args()

    work = args.lake or Path(tempfile.mkdtemp(prefix="adlake_soak_"))
    lake, landing, generated = work / "lake", work / "landing", work / "generated"
    write_profile(work / "profiles", lake)
    os.environ["ADLAKE_LANDING_DIR"] = str(landing)
    truth = generate(generated, seed=args.seed, events=args.events_per_batch * args.batches,
                     batches=args.batches, accounts=60, force=True)["batches"]
    dwd = lake / "warehouse" / f"{SCHEMA}_dwd.db" / "dwd_billing_events"
    print(f"soak: {args.batches} batches of about {args.events_per_batch} lines; lake {work}")
    print(f"{'batch':>5} {'build s':>8} {'timeline':>8} {'files/part':>10} {'JVM MiB':>8} {'heap MiB':>8} {'py MiB':>7}")
    rows = []
    spark = None
    try:
        for batch in range(1, args.batches + 1):
            land_batch(generated, landing, batch)
            started = time.perf_counter()
            dbt_build(work / "profiles", work)
            if spark is None:
                from pyspark.sql import SparkSession

                spark = SparkSession.builder.getOrCreate()
            row = (batch, time.perf_counter() - started, *table_growth(dwd), *jvm_figures(spark), rss_mib(os.getpid()))
            rows.append(row)
            print("{:>5} {:>8.1f} {:>8} {:>10} {:>8.0f} {:>8.0f} {:>7.0f}".format(*row), flush=True)
        spend = spark.newSession().sql(
            f"select sum(spend_micros) from {SCHEMA}_ads.ads_spend_by_customer").collect()[0][0]
        first, last = rows[0], rows[-1]
        print(f"\nactive timeline of dwd_billing_events: max {max(r[2] for r in rows)} instants; "
              f"data files in one partition: max {max(r[3] for r in rows)}")
        print(f"JVM resident {first[4]:.0f} -> {last[4]:.0f} MiB, heap after GC {first[5]:.0f} -> {last[5]:.0f} MiB, "
              f"Python {first[6]:.0f} -> {last[6]:.0f} MiB")
        ok = spend == truth[-1]["cost_micros"]
        print(f"spend in ADS {spend:,} micros; truth {truth[-1]['cost_micros']:,} ({'ok' if ok else 'MISMATCH'})")
        if not ok:
            sys.exit(1)
    finally:
        if spark is not None:
            spark.stop()
        if args.lake is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
