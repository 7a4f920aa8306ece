"""`make bench`: every benchmark against its alternative, in one run on this
machine, then BENCHMARKS.md and its plots (adlake.bench.report).

Each part is a benchmark module of its own, run as a child process that
writes its figures as JSON:

- adlake.bench.scaling: full refresh against an incremental micro-batch at
  several sizes, commit reads against snapshot scans, merge-on-read against
  copy-on-write, append against upsert;
- adlake.bench.alternatives: the same pipeline on this adapter, on plain
  dbt-spark with Hudi, as parquet full rebuilds, and the raw-I/O floor;
- adlake.bench.freshness: latency from landing to ADS on the warehouse;
- adlake.bench.stream: the same under a stream, a batch landing every 60 s
  while continuous mode builds;
- adlake.bench.warm_start: dbt commands with Spark started in the process
  against the lake's warm server;
- adlake.bench.formats: the micro-batch on Hudi, Iceberg and Delta side by
  side, merge-on-read against copy-on-write, change reads against snapshot
  scans on each.

    python -m adlake.bench.suite [--scale default|large] [--parts scaling,alternatives,freshness,stream,warm_start,formats]
                                 [--keep-others]
                                 [--out benchmarks]

The default scale takes about 40 minutes on a 2-core machine; `large`
measures ten times the data and takes hours; `tiny` checks the wiring in a
few minutes (its figures mean nothing). Nothing is asserted on time:
the report says which targets the figures meet.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from adlake import ROOT
from adlake.bench import report

# A tiny warehouse under the freshness and stream benchmarks.
TINY_PRELOAD = ["--preload", "20000", "--preload-chunk", "20000", "--batch-events", "2000"]
TINY_PRELOAD += ["--warmup", "1"]
# The arguments of each part, per scale.
SCALES = {
    "default": {
        "scaling": ["--sizes", "1000000,5000000,10000000", "--mor-cow-size", "5000000"],
        "alternatives": [],
        # One measured batch: each costs over a minute (data tests included),
        # and the default scale must fit in 30 minutes.
        "freshness": ["--preload", "1000000", "--batches", "1", "--warmup", "1"],
        # Ten batches a minute apart: at least ten minutes.
        "stream": ["--preload", "1000000", "--batches", "10"],
        "warm_start": ["--runs", "3"],
        "formats": ["--rows", "1000000"],
    },
    # Minutes, not half an hour: to check the wiring end to end, not to measure.
    "tiny": {
        "scaling": [
            "--sizes",
            "20000,100000",
            "--mor-cow-size",
            "50000",
            "--append-rows",
            "20000",
        ],
        "alternatives": ["--base-events", "2000", "--batches", "1"],
        "freshness": [*TINY_PRELOAD, "--batches", "1"],
        "stream": [*TINY_PRELOAD, "--batches", "3", "--interval", "15"],
        "warm_start": ["--runs", "1"],
        "formats": ["--rows", "20000"],
    },
    "large": {
        "scaling": [
            "--sizes",
            "10000000,50000000,100000000",
            "--mor-cow-size",
            "50000000",
            "--append-rows",
            "10000000",
        ],
        "alternatives": ["--base-events", "20000000"],
        "freshness": ["--preload", "1000000", "--preload", "10000000"],
        "stream": ["--preload", "1000000", "--preload", "10000000"],
        "warm_start": ["--runs", "5"],
        "formats": ["--rows", "10000000"],
    },
}
PARTS = ("scaling", "alternatives", "freshness", "stream", "warm_start", "formats")


def run_part(part: str, args: list[str], out: Path) -> dict:
    """Runs one benchmark module; its figures, with its command, seconds and
    when (date and commit) it ran."""
    figures_file = out / f"{part}.json"
    figures_file.unlink(missing_ok=True)
    command = [sys.executable, "-m", f"adlake.bench.{part}", *args, "--json", str(figures_file)]
    print(f"\n== {part}: {' '.join(command[1:])}", flush=True)
    commit = machine()["commit"]  # the code the part runs: HEAD when it starts
    started = time.time()
    child = subprocess.run(command, cwd=ROOT)
    seconds = time.time() - started
    if child.returncode != 0 or not figures_file.exists():
        sys.exit(f"bench: {part} failed (exit {child.returncode})")
    return {
        "command": "python " + " ".join(command[1:-2]),
        "seconds": round(seconds, 1),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "figures": json.loads(figures_file.read_text()),
    }


def machine() -> dict:
    memory = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory = int(line.split()[1]) // (1024 * 1024)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "cores": os.cpu_count(),
        "memory_gib": memory,
        "python": platform.python_version(),
        "commit": commit,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(SCALES), default="default")
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument(
        "--keep-others",
        action="store_true",
        help="keep the other parts' figures from the last results.json (each part is dated)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results = {
        "scale": args.scale,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "parts": {},
    }
    earlier = args.out / "results.json"
    if args.keep_others and earlier.exists():
        kept = json.loads(earlier.read_text())
        for part in kept["parts"].values():  # dated by their run, if not already
            part.setdefault("date", kept["date"])
            part.setdefault("commit", kept["machine"]["commit"])
            part.setdefault("scale", kept["scale"])
        # The header stays the full run's; the parts run now say when they ran.
        results.update({k: kept[k] for k in ("scale", "date", "machine")})
        results["parts"] = kept["parts"]
    for part in args.parts.split(","):
        results["parts"][part] = run_part(part, SCALES[args.scale][part], args.out)
        results["parts"][part]["scale"] = args.scale
    results["seconds"] = round(sum(part["seconds"] for part in results["parts"].values()), 1)
    (args.out / "results.json").write_text(json.dumps(results, indent=1))
    # The repository's BENCHMARKS.md for its own figures folder; beside the
    # figures otherwise.
    default_out = args.out.resolve() == (ROOT / "benchmarks").resolve()
    markdown = ROOT / "BENCHMARKS.md" if default_out else args.out / "BENCHMARKS.md"
    report.write(results, args.out, markdown)
    print(f"\nbench: {results['seconds']:.0f} s; see {markdown}", flush=True)


if __name__ == "__main__":
    main()
