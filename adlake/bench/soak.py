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

    python -m adlake.bench.soak [--batches 50] [--events-per-batch 500] [--seed 17] [--lake DIR]
                                [--vars '{dwd_compaction_delta_commits: 2, ...}']

(or `adlake-soak ...`).

CI runs a short version (tests/warehouse/test_soak.py): two batches, the
second compacting (--vars). That the table services keep the timeline
bounded is checked on continuous mode's builds (tests/warehouse/test_continuous.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from adlake.generator import generate
from adlake.landing import land_batch
from adlake.runner.warehouse import billing_lines, work_args

SCHEMA = "soak"
COMPLETED = re.compile(r"^\d+_\d+\.\w+$")


def write_profile(
    folder: Path, lake: Path, spark_conf: dict | None = None, schema: str = SCHEMA, threads: int = 1
) -> None:
    """A profile with one embedded-Spark target on `lake`."""
    folder.mkdir(parents=True, exist_ok=True)
    output = {
        "type": "lakehouse",
        "method": "session",
        "schema": schema,
        "lake_dir": str(lake),
        "threads": threads,
    }
    if spark_conf:
        output["spark_conf"] = spark_conf
    profile = {"adlake": {"target": "soak", "outputs": {"soak": output}}}
    (folder / "profiles.yml").write_text(yaml.safe_dump(profile))


class SoakFailed(Exception):
    pass


def past_start(batches: int, batch_minutes: int = 480) -> datetime:
    """Where the generated data starts, so that its last window ends an hour
    before now. The warehouse quarantines an event more than a day ahead of the
    clock that ingests it (time_out_of_range): 50 windows of 8 hours from a
    fixed date would run weeks into the future, and the soak would quarantine
    most of its events instead of building them."""
    now = datetime.now(UTC).replace(tzinfo=None, minute=0, second=0, microsecond=0)
    return now - timedelta(hours=1) - timedelta(minutes=batch_minutes * batches)


def dbt_build(profiles: Path, work: Path, dbt_vars: str) -> None:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(
        # (dbt's unit tests check the SQL, not the data: not a batch's work)
        [
            "--log-level",
            "warn",
            "build",
            *work_args(work, profiles),
            "--vars",
            dbt_vars,
            "--exclude-resource-type",
            "unit_test",
        ]
    )
    if not result.success:
        raise SoakFailed(f"dbt build failed; see {work / 'logs' / 'dbt.log'}")


def is_data_file(name: str) -> bool:
    """A base file (parquet) or a log file (.<file id>_<instant>.log.<n>_<token>);
    not a checksum (.crc) nor the partition's metadata."""
    return not name.endswith(".crc") and (name.endswith(".parquet") or ".log." in name)


def table_growth(table_dir: Path, seen: set) -> tuple:
    """(active completed instants, most data files in one partition, archived
    timeline files). Adds each completed instant's file name to `seen`."""
    timeline = table_dir / ".hoodie" / "timeline"
    completed = [p.name for p in timeline.iterdir() if COMPLETED.match(p.name)]
    seen.update(completed)
    active = len(completed)
    history = timeline / "history"
    archived = (
        sum(1 for p in history.iterdir() if p.suffix == ".parquet") if history.is_dir() else 0
    )
    partitions = [p for p in table_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    files = max(
        (sum(1 for f in p.iterdir() if is_data_file(f.name)) for p in partitions), default=0
    )
    return active, files, archived


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    """A process's resident memory in MiB: now (VmRSS), or its peak so far (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def jvm_figures(spark) -> tuple:
    """(JVM resident MiB, heap MiB in use after a full GC)."""
    jvm = spark.sparkContext._jvm
    runtime = jvm.java.lang.Runtime.getRuntime()
    # Twice, with finalizers run between: an object with a finalizer survives
    # the first collection that finds it unreachable. (The figure still varies
    # by 50-100 MiB from batch to batch; its floor is what shows growth.)
    jvm.java.lang.System.gc()
    jvm.java.lang.System.runFinalization()
    jvm.java.lang.System.gc()
    heap = (runtime.totalMemory() - runtime.freeMemory()) / 2**20
    return rss_mib(int(jvm.java.lang.ProcessHandle.current().pid())), heap


def soak(batches: int, events_per_batch: int, seed: int, work: Path, dbt_vars: str = "{}") -> dict:
    """Lands and builds `batches` batches in `work`, printing a line per batch;
    returns the figures. Raises SoakFailed when a build or its tests fail, or
    when ADS's spend differs from the generator's truth."""
    lake, landing, generated = work / "lake", work / "landing", work / "generated"
    write_profile(work / "profiles", lake)
    os.environ["ADLAKE_LANDING_DIR"] = str(landing)
    truth = generate(
        generated,
        seed=seed,
        events=events_per_batch * batches,
        batches=batches,
        accounts=60,
        start=past_start(batches),
        force=True,
    )["batches"]
    dwd = lake / "warehouse" / f"{SCHEMA}_dwd.db" / "dwd_billing_events"
    print(f"soak: {batches} batches of about {events_per_batch} lines; lake {work}")
    print(
        f"{'batch':>5} {'build s':>8} {'timeline':>8} {'files/part':>10} {'archived':>8} "
        f"{'JVM MiB':>8} {'heap MiB':>8} {'py MiB':>7}"
    )
    rows = []
    seen: set = set()
    spark = None
    try:
        for batch in range(1, batches + 1):
            land_batch(generated, landing, batch)
            started = time.perf_counter()
            dbt_build(work / "profiles", work, dbt_vars)
            if spark is None:
                from pyspark.sql import SparkSession

                spark = SparkSession.builder.getOrCreate()
            row = (
                batch,
                time.perf_counter() - started,
                *table_growth(dwd, seen),
                *jvm_figures(spark),
                rss_mib(os.getpid()),
            )
            rows.append(row)
            print(
                "{:>5} {:>8.1f} {:>8} {:>10} {:>8} {:>8.0f} {:>8.0f} {:>7.0f}".format(*row),
                flush=True,
            )
        session = spark.newSession()
        spend = session.sql(
            f"select sum(spend_micros) from {SCHEMA}_ads.ads_spend_by_customer"
        ).collect()[0][0]
        lines = billing_lines(session, SCHEMA)
    finally:
        if spark is not None:
            spark.stop()
    first, last = rows[0], rows[-1]
    figures = {
        "max_active_timeline": max(r[2] for r in rows),
        "max_files_per_partition": max(r[3] for r in rows),
        "archived_files": last[4],
        "jvm_mib": (first[5], last[5]),
        "heap_mib": (first[6], last[6]),
        "python_mib": (first[7], last[7]),
        # Every instant that completed during the soak, by action: compactions
        # complete as `commit` on a merge-on-read table.
        "completed": {
            action: sum(1 for name in seen if name.endswith("." + action))
            for action in ("deltacommit", "commit", "clean")
        },
        "lines": lines,
        "spend_micros": spend,
        "truth_micros": truth[-1]["cost_micros"],
    }
    print(
        f"\nactive timeline of dwd_billing_events: max {figures['max_active_timeline']} instants; "
        f"data files in one partition: max {figures['max_files_per_partition']}; "
        f"archived timeline files at the end: {figures['archived_files']}"
    )
    print(
        f"JVM resident {first[5]:.0f} -> {last[5]:.0f} MiB, heap after GC {first[6]:.0f} -> {last[6]:.0f} MiB, "
        f"Python {first[7]:.0f} -> {last[7]:.0f} MiB"
    )
    print(f"completed on dwd_billing_events: {figures['completed']}")
    print(
        "billing lines: landed {landed:,} = valid {valid:,} + quarantined {quarantined:,} + held {held:,} "
        "({released:,} released)".format(**lines)
    )
    print("soak figures: " + json.dumps(figures), flush=True)
    ok = spend == figures["truth_micros"]
    print(
        f"spend in ADS {spend:,} micros; truth {figures['truth_micros']:,} ({'ok' if ok else 'MISMATCH'})"
    )
    if not ok:
        raise SoakFailed(f"spend in ADS {spend} differs from the truth {figures['truth_micros']}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--events-per-batch", type=int, default=500)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument(
        "--lake", type=Path, help="work folder (default: a new temporary folder, removed after)"
    )
    parser.add_argument("--vars", default="{}", help="dbt --vars for every build (YAML)")
    args = parser.parse_args()

    work = args.lake or Path(tempfile.mkdtemp(prefix="adlake_soak_"))
    try:
        soak(args.batches, args.events_per_batch, args.seed, work, args.vars)
    except SoakFailed as exc:
        sys.exit(f"soak: {exc}")
    finally:
        if args.lake is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
