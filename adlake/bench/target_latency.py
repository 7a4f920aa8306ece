"""Latency from landing to ADS on each execution target, side by side, in one run.

    python -m adlake.bench.target_latency [--targets local,connect,thrift,connect-cluster,thrift-cluster]
                                   [--batch-events 100000] [--warmup 2] [--batches 3] [--json FILE]

(or `adlake-bench-targets ...`).

For each target in turn, on a warehouse of its own built from the same
generated data: lands --warmup batches and builds each (a warm server or JVM,
the project parsed: what continuous mode has after a while), then lands and
builds --batches measured batches one by one, as continuous mode does (one
`dbt build` checking what it wrote; DWD's compactions planned by the write and
run after the build, apart). After each batch the warehouse's totals must
equal the generator's truth. A server target's server (and the cluster) is
started before its warm-up and stopped after its last batch, so the targets
do not share the machine's memory or cores.

It prints each batch (latency from landing to the end of the last ADS model,
seconds per layer) and a table: median and worst latency per target. It
asserts no time; it exits non-zero on a failed build or a total that differs
from the truth.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from adlake.bench.soak import past_start
from adlake.generator import generate
from adlake.landing import land_batch
from adlake.runner import compare_targets as runner
from adlake.runner.continuous import batch_figures, landed_files
from adlake.runner.warehouse import Builds, work_args

BATCH_MINUTES = 480  # the generator's default window for a batch


def measure_target(
    target: str, work: Path, generated: Path, truth: list[dict], warmup: int, batches: int
) -> dict:
    method = runner.method_of(target)
    folder = work / target
    shutil.rmtree(folder, ignore_errors=True)
    with ExitStack() as stack:
        servers = runner.Servers(stack, work / f"{target}-servers", None)
        port = None if method == "session" else servers.port(target)
        schema = "adlake"
        runner.write_profile(folder / "profiles", runner.profile(target, folder, schema, port))
        landing = folder / "landing"
        os.environ["ADLAKE_LANDING_DIR"] = str(landing)
        builds = Builds(work_args(folder), compact_between_builds=True)
        query = runner.query_function(method, port)
        measured = []
        for batch in range(1, warmup + batches + 1):
            known = landed_files(landing)
            land_batch(generated, landing, batch)
            new = {k: v for k, v in landed_files(landing).items() if k not in known}
            result = builds.build("changed")
            figures = batch_figures([result], new, None, {})
            found = runner.totals(query, schema)
            if found != {k: truth[batch - 1][k] for k in found}:
                raise runner.TargetFailed(
                    f"{target}: batch {batch} totals {found} differ from the truth"
                )
            compaction = builds.compact_scheduled()
            label = "warm-up" if batch <= warmup else "measured"
            layers = ", ".join(f"{k} {v:.1f}" for k, v in sorted(figures["seconds"].items()))
            print(
                f"{target}: batch {batch} ({label}): landing to ADS {figures['landing_to_ads']:.1f} s "
                f"({layers}); totals equal the truth; then compaction {compaction:.1f} s",
                flush=True,
            )
            if batch > warmup:
                measured.append(figures)
    latencies = [f["landing_to_ads"] for f in measured]
    return {
        "median_s": statistics.median(latencies),
        "worst_s": max(latencies),
        "latencies_s": latencies,
        "median_by_layer_s": {
            layer: statistics.median(f["seconds"].get(layer, 0.0) for f in measured)
            for layer in sorted({k for f in measured for k in f["seconds"]})
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="local,connect,thrift,connect-cluster,thrift-cluster")
    parser.add_argument("--batch-events", type=int, default=100_000)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--work", type=Path, help="default: a new temporary folder")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    chosen = [t.strip() for t in args.targets.split(",") if t.strip()]
    if not chosen or set(chosen) - set(runner.TARGETS):
        parser.error(f"choose targets from {', '.join(runner.TARGETS)}")
    work = (args.work or Path(tempfile.mkdtemp(prefix="adlake-bench-targets-"))).resolve()
    total = args.warmup + args.batches
    started = time.perf_counter()
    truth = generate(
        work / "generated",
        seed=args.seed,
        events=args.batch_events * total,
        batches=total,
        start=past_start(total, BATCH_MINUTES),
        batch_minutes=BATCH_MINUTES,
        force=True,
    )["batches"]
    print(
        f"generated {total} batches of {args.batch_events:,} events in {time.perf_counter() - started:.0f} s"
    )
    results = {}
    try:
        for target in chosen:
            results[target] = measure_target(
                target, work, work / "generated", truth, args.warmup, args.batches
            )
    except runner.TargetFailed as exc:
        print(f"bench: {exc}")
        return 1
    print(f"\n{'target':<16} {'median s':>8} {'worst s':>7}  median per layer (s)")
    for target, figures in results.items():
        layers = ", ".join(f"{k} {v:.1f}" for k, v in figures["median_by_layer_s"].items())
        print(f"{target:<16} {figures['median_s']:>8.1f} {figures['worst_s']:>7.1f}  {layers}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
