"""Freshness benchmark: latency from landing to ADS of 100k-event batches on a
preloaded warehouse, at two warehouse sizes.

For each --preload size (default 1,000,000 events, then 10,000,000), in a
process and a lake of its own, it:

1. generates the preload plus --batches batches of --batch-events events each,
   with the generator's usual mess (duplicates, corrections, late and broken
   lines), ending an hour before now (so nothing is quarantined as future);
2. preloads: lands the first events in chunks of --preload-chunk and runs the
   models once per chunk (`dbt run`: the chunks bound the memory; the preload
   is not what is measured), except the last --warmup batches, which it
   builds one by one as the measured ones (a watcher that has run for a while
   has built batches before; the first builds of a new JVM are 10-25 s slower
   while it compiles the hot code); then runs the data tests once over whole
   tables (`dbt build`, nothing new to build), as continuous mode does every
   few builds;
3. lands each measured batch and builds it as continuous mode does (one
   `dbt build` in the warm JVM, data tests scoped to what it wrote), then
   checks the warehouse's totals (spend in ADS, billable events in DWD)
   against the generator's truth for that batch, then runs the compaction
   the build planned (between batches, as continuous mode does; its seconds
   are printed apart: they delay no batch's figures unless batches land
   faster than build plus compaction).

It prints a line per batch (lines in, seconds per layer and for the tests,
latency from landing to the end of the last ADS model, the CPU seconds the
Spark JVM and this Python process (dbt) spent on the build, the JVM's peak
resident memory) and, per size, the median and worst latency; then the ratio
of the largest size's median to the smallest's. With --json it also keeps,
for each batch, every node's seconds and its SQL statements' seconds by kind
(the profiler's: write, query, set or reset, describe or show, ...). It asserts no time (a clock is no test); it exits
non-zero when a build fails or a total differs from the truth.

    python -m adlake.bench.freshness [--preload 1000000 --preload 10000000] [--batch-events 100000]
                                     [--batches 5] [--warmup 2] [--preload-chunk 1000000] [--work DIR] [--json FILE]

(or `adlake-bench-freshness ...`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adlake.bench import children
from adlake.bench.profile_batch import StatementRecorder
from adlake.bench.soak import cpu_seconds, past_start, rss_mib, write_profile
from adlake.generator import generate
from adlake.landing import land_batch
from adlake.runner.continuous import batch_figures, describe, landed_files
from adlake.runner.warehouse import Builds, billing_lines, tally, work_args

SCHEMA = "fresh"
BATCH_MINUTES = 480  # the generator's default window for a batch


def totals(spark) -> dict:
    """What the truth is checked against: spend in ADS, billable events in DWD."""
    row = spark.sql(
        f"select (select coalesce(sum(spend_micros), 0) from {SCHEMA}_ads.ads_spend_by_industry) as cost_micros, "
        f"(select count(*) from {SCHEMA}_dwd.dwd_billing_events) as events"
    ).collect()[0]
    return row.asDict()


def statement_seconds(recorder: StatementRecorder) -> dict[str, dict[str, float]]:
    """Per node, the seconds of the SQL statements dbt sent, by kind
    (profile_batch.statement_kind): where a model's time went."""
    seconds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for statement in recorder.statements:
        seconds[statement.node.split(".")[-1]][statement.kind] += statement.seconds
    return {node: dict(kinds) for node, kinds in seconds.items()}


def check_truth(spark, truth: dict, label: str) -> None:
    found = totals(spark)
    expected = {key: truth[key] for key in found}
    if found != expected:
        sys.exit(
            f"{label}: the warehouse's totals {found} differ from the generator's truth {expected}"
        )


def build_batch(
    builds: Builds,
    spark,
    jvm: int,
    generated: Path,
    landing: Path,
    batch: int,
    before: dict,
    truth: list[dict],
    label: str,
) -> dict:
    """Lands batch `batch` and builds it as continuous mode does: one `dbt
    build` checking what it wrote, the totals checked against the truth, then
    the compaction the build planned. Returns its figures."""
    known = landed_files(landing)
    land_batch(generated, landing, batch)
    new = {name: value for name, value in landed_files(landing).items() if name not in known}
    started = time.perf_counter()
    recorder = StatementRecorder()
    cpu_before = {"jvm": cpu_seconds(jvm), "python": cpu_seconds(os.getpid())}
    result = builds.build("changed", callbacks=[recorder])
    build_s = time.perf_counter() - started
    # Where the cores went: a Python process (dbt) busy for a large share of
    # the build competes with the Spark JVM for the same cores.
    cpu = {
        "jvm": cpu_seconds(jvm) - cpu_before["jvm"],
        "python": cpu_seconds(os.getpid()) - cpu_before["python"],
    }
    session = spark.newSession()  # fresh file listings, as a reader would see them
    figures = batch_figures([result], new, before, billing_lines(session, SCHEMA))
    check_truth(session, truth[batch - 1], label)
    figures.update(
        {
            "build_s": build_s,
            "cpu_s": cpu,
            "compaction_s": builds.compact_scheduled(),
            "tally": tally(result),
            "statements": statement_seconds(recorder),
        }
    )
    return figures


def describe_batch(label: str, figures: dict) -> str:
    return (
        describe(label, figures, figures["build_s"], "of what it wrote", figures["tally"])
        + f"; CPU: JVM {figures['cpu_s']['jvm']:.0f} s, Python {figures['cpu_s']['python']:.0f} s"
        + f"; totals equal the truth; then compaction {figures['compaction_s']:.1f} s"
    )


def preload_chunks(batches: int, per_chunk: int) -> list[range]:
    """Batches 1 to `batches`, `per_chunk` at a time: each chunk is landed and
    built with one `dbt run`, so a preload of many batches takes a few runs
    (bounded memory) and not a build each."""
    return [
        range(first, min(first + per_chunk, batches + 1))
        for first in range(1, batches + 1, per_chunk)
    ]


def build_preload(
    builds: Builds, generated: Path, landing: str | Path, batches: int, per_run: int, label: str
) -> None:
    """Lands and builds batches 1 to `batches`, `per_run` of them a `dbt run`,
    each run's planned compaction after it."""
    started = time.perf_counter()
    for part in preload_chunks(batches, per_run):
        for batch in part:
            land_batch(generated, landing, batch)
        builds.build("changed", command="run")
        builds.compact_scheduled()
        print(
            f"{label}: batches {part[0]}-{part[-1]} built "
            f"({time.perf_counter() - started:.0f} s so far)",
            flush=True,
        )


@dataclass
class Preloaded:
    """A warehouse built on `preload_batches` batches, its batches after them
    generated and not landed yet; the JVM warm."""

    builds: Builds
    spark: Any
    jvm: int  # the Spark JVM's process id
    generated: Path
    landing: Path
    truth: list[dict]  # the generator's cumulative truth after each batch
    preload_batches: int
    total_batches: int
    lines: dict  # billing lines so far (runner.warehouse.billing_lines)
    preload_s: float
    full_checks_s: float


def preload_warehouse(
    args: argparse.Namespace, preload: int, work: Path, label: str = "preload"
) -> Preloaded:
    """Steps 1 and 2 above: generates the preload and `batches` batches after
    it, builds the preload, then checks whole tables once. `args`: the
    options of add_preload_arguments."""
    from pyspark.sql import SparkSession

    batch_events, batches, chunk = args.batch_events, args.batches, args.preload_chunk
    seed, threads, warmup = args.seed, args.threads, args.warmup

    for folder in ("lake", "landing", "target", "logs"):  # a fresh warehouse every time
        shutil.rmtree(work / folder, ignore_errors=True)
    lake, landing, generated = work / "lake", work / "landing", work / "generated"
    write_profile(work / "profiles", lake, schema=SCHEMA, threads=threads)
    os.environ["ADLAKE_LANDING_DIR"] = str(landing)
    builds = Builds(work_args(work), compact_between_builds=True)

    preload_batches = max(1, preload // batch_events)
    total_batches = preload_batches + batches
    started = time.perf_counter()
    truth = generate(
        generated,
        seed=seed,
        events=batch_events * total_batches,
        batches=total_batches,
        start=past_start(total_batches, BATCH_MINUTES),
        batch_minutes=BATCH_MINUTES,
        force=True,
    )["batches"]
    print(
        f"{label} {preload:,}: generated {batch_events * total_batches:,} event lines in "
        f"{total_batches} batches in {time.perf_counter() - started:.0f} s",
        flush=True,
    )

    started = time.perf_counter()
    chunked = max(1, preload_batches - warmup)  # the last `warmup` batches are built one by one
    build_preload(
        builds, generated, landing, chunked, max(1, chunk // batch_events), f"{label} {preload:,}"
    )
    spark = SparkSession.builder.getOrCreate()
    jvm = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    before = billing_lines(spark.newSession(), SCHEMA)
    for number, batch in enumerate(range(chunked + 1, preload_batches + 1), start=1):
        figures = build_batch(
            builds, spark, jvm, generated, landing, batch, before, truth, f"warm-up batch {number}"
        )
        print(describe_batch(f"warm-up batch {number}", figures), flush=True)
        before = figures["lines_total"]
    check_truth(spark.newSession(), truth[preload_batches - 1], "after the preload")
    preload_s = time.perf_counter() - started
    # The whole-table data tests once, as continuous mode runs them every few
    # builds: the preloaded warehouse is checked.
    started = time.perf_counter()
    tally_full = tally(builds.build("full"))
    check_s = time.perf_counter() - started
    print(f"{label} {preload:,}: whole-table checks [{tally_full}] in {check_s:.0f} s", flush=True)
    return Preloaded(
        builds,
        spark,
        jvm,
        generated,
        landing,
        truth,
        preload_batches,
        total_batches,
        before,
        preload_s,
        check_s,
    )


def run_one(args: argparse.Namespace, preload: int, work: Path) -> dict:
    """Preload, then land and build the measured batches; returns the figures."""
    loaded = preload_warehouse(args, preload, work)
    builds, spark, jvm = loaded.builds, loaded.spark, loaded.jvm
    generated, landing, truth, before = loaded.generated, loaded.landing, loaded.truth, loaded.lines
    preload_batches, total_batches = loaded.preload_batches, loaded.total_batches

    measured: list[dict] = []
    for number, batch in enumerate(range(preload_batches + 1, total_batches + 1), start=1):
        figures = build_batch(
            builds, spark, jvm, generated, landing, batch, before, truth, f"batch {number}"
        )
        figures["jvm_peak_mib"] = rss_mib(jvm, "VmHWM")
        print(
            describe_batch(f"batch {number}", figures)
            + f"; JVM peak {figures['jvm_peak_mib']:,.0f} MiB",
            flush=True,
        )
        measured.append(figures)
        before = figures["lines_total"]
    spark.stop()

    latencies = [f["landing_to_ads"] for f in measured]
    layers = sorted({layer for f in measured for layer in f["seconds"]})
    return {
        "preload": preload,
        "batch_events": args.batch_events,
        "preload_s": loaded.preload_s,
        "full_checks_s": loaded.full_checks_s,
        "median_s": statistics.median(latencies),
        "worst_s": max(latencies),
        "median_by_layer_s": {
            layer: statistics.median(f["seconds"].get(layer, 0.0) for f in measured)
            for layer in layers
        },
        "jvm_peak_mib": max(f["jvm_peak_mib"] for f in measured),
        "batches": measured,
    }


def summarise(runs: list[dict]) -> None:
    print(f"\n{'preloaded':>11} {'preload s':>9} {'median s':>8} {'worst s':>7}  median per layer")
    for run in runs:
        layers = ", ".join(f"{name} {s:.1f}" for name, s in run["median_by_layer_s"].items())
        print(
            f"{run['preload']:>11,} {run['preload_s']:>9.0f} {run['median_s']:>8.1f} {run['worst_s']:>7.1f}  {layers}"
        )
    if len(runs) > 1:
        small, large = runs[0], runs[-1]
        print(
            f"median at {large['preload']:,} / median at {small['preload']:,}: "
            f"{large['median_s'] / small['median_s']:.2f}x"
        )


def add_preload_arguments(parser: argparse.ArgumentParser, default_batches: int) -> None:
    """The options of a benchmark on a preloaded warehouse (this one and
    adlake.bench.stream)."""
    parser.add_argument(
        "--preload",
        type=int,
        action="append",
        help="events in the warehouse before the measured batches; repeat for several sizes",
    )
    parser.add_argument("--batch-events", type=int, default=100_000)
    parser.add_argument(
        "--batches",
        type=int,
        default=default_batches,
        help=f"measured batches per size (default {default_batches})",
    )
    parser.add_argument(
        "--preload-chunk", type=int, default=1_000_000, help="events landed per preload run"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--threads", type=int, default=4, help="dbt threads (default 4, as make run)"
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=2,
        help="the preload's last batches, built one by one as measured ones are but not "
        "measured: a long-running watcher's JVM has built batches before (default 2)",
    )
    parser.add_argument(
        "--work", type=Path, help="work folder, kept (default: a temporary one, removed after)"
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    # A child: one size, its figures on stdout's last line.
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)


def run_sizes(module: str, args: argparse.Namespace, sizes: list[int], extra: list[str]) -> list:
    """Runs `module --one` for each size, in a process (a JVM and a lake) of
    its own, with the options of add_preload_arguments and `extra`; their
    figures."""
    work = args.work or Path(tempfile.mkdtemp(prefix="adlake_preloaded_"))
    shared = ["--batch-events", str(args.batch_events), "--batches", str(args.batches)]
    shared += ["--preload-chunk", str(args.preload_chunk), "--seed", str(args.seed)]
    shared += ["--threads", str(args.threads), "--warmup", str(args.warmup), *extra]
    runs = []
    try:
        for size in sizes:
            child = ["--one", "--preload", str(size), "--work", str(work / f"preload_{size}")]
            runs.append(children.run(module, child + shared, f"preload {size:,}: failed"))
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_preload_arguments(parser, default_batches=5)
    args = parser.parse_args()
    sizes = args.preload or [1_000_000, 10_000_000]
    if args.one:
        children.report(run_one(args, sizes[0], args.work))
        return
    runs = run_sizes(__spec__.name, args, sizes, [])
    summarise(runs)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
