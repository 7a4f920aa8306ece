"""Stream benchmark: batches land on a clock while continuous mode builds them.

For each --preload size, in a process and a lake of its own, it preloads the
warehouse as the freshness benchmark does (adlake.bench.freshness: chunks of
`dbt run`, warm-up batches, whole-table checks once), then runs continuous
mode's watcher (adlake.runner.continuous.watch, with its defaults: poll 0.5 s,
settle 0.5 s, each batch's models first, the data tests of what they wrote
after every 2 batches' models (sooner when one fits before the next batch is
due) and of whole tables every 4th build, the compaction
plans run after each build) while a thread lands one
--batch-events batch every --interval seconds, --batches times, on a fixed
schedule whatever the builds do. A build takes whatever landed since the last
one: when the stream runs ahead, one build takes several batches.

For each landed batch it reports landing -> ADS (the end of the last ADS model
of the build that took it) and landing -> checked (the data tests that read
its rows passed); after every build, the warehouse's totals (spend in ADS,
billable events in DWD) against the generator's truth for the last batch it
took. Compaction and cleaning run inside the stream (between builds and in the
writes), so the figures say what the stream sustains. Per size: the median and
worst of both latencies, and the ratio of the largest size's median to the
smallest's. Nothing is asserted on time; it exits non-zero when a build fails
or a total differs from the truth.

    python -m adlake.bench.stream [--preload 1000000 --preload 10000000] [--batches 10]
                                  [--interval 60] [--batch-events 100000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from pathlib import Path

from adlake.bench import children
from adlake.bench.freshness import (
    SCHEMA,
    add_preload_arguments,
    check_truth,
    preload_warehouse,
    run_sizes,
)
from adlake.landing import land_batch
from adlake.runner.continuous import State, landed_files, watch


class Lander(threading.Thread):
    """Lands batches first..last, one every `interval` seconds from its start,
    and records when each landed and which files it brought."""

    def __init__(self, generated: Path, landing: Path, first: int, last: int, interval: float):
        super().__init__(daemon=True)
        self.generated, self.landing = generated, landing
        self.batches = range(first, last + 1)
        self.interval = interval
        self.landed: dict[int, dict] = {}  # batch -> {"at": epoch seconds, "files": [...]}
        self.failure: BaseException | None = None

    def run(self) -> None:
        started = time.monotonic()
        try:
            for number, batch in enumerate(self.batches):
                time.sleep(max(0.0, started + number * self.interval - time.monotonic()))
                known = landed_files(self.landing)
                land_batch(self.generated, self.landing, batch)
                files = sorted(set(landed_files(self.landing)) - set(known))
                self.landed[batch] = {"at": time.time(), "files": files}
                print(f"stream: batch {batch} landed ({len(files)} files)", flush=True)
        except BaseException as exc:  # reported by the watcher's loop
            self.failure = exc

    @property
    def done(self) -> bool:
        return len(self.landed) == len(self.batches) or self.failure is not None

    def batches_in(self, files: list[str]) -> list[int]:
        """The landed batches that brought any of `files`."""
        wanted = set(files)
        return sorted(b for b, landed in self.landed.items() if wanted & set(landed["files"]))


def run_one(args: argparse.Namespace, preload: int, work: Path) -> dict:
    loaded = preload_warehouse(args, preload, work, label="stream")
    lander = Lander(
        loaded.generated,
        loaded.landing,
        loaded.preload_batches + 1,
        loaded.total_batches,
        args.interval,
    )
    # The watcher starts from what the preload built: only the stream is new to it.
    state = State(work / "stream_state.json")
    state.save(landed_files(loaded.landing))
    taken: dict[int, int] = {}  # batch -> the build that took it
    builds: list[dict] = []

    def after_build(figures: dict) -> None:
        batches = lander.batches_in(figures["new_files"])
        for batch in batches:
            taken[batch] = len(builds) + 1
        if batches:
            check_truth(
                loaded.spark.newSession(),
                loaded.truth[max(batches) - 1],
                f"build {len(builds) + 1}",
            )
        figures["batches"] = batches
        builds.append(figures)

    def stop() -> bool:
        if lander.failure is not None:
            raise RuntimeError("landing a batch failed") from lander.failure
        return lander.done and not state.new_files(landed_files(loaded.landing))

    # As continuous mode runs by default: ADS published, then the checks.
    loaded.builds.checks_after_models = True
    lander.start()
    watch(loaded.landing, state, loaded.builds, schema=SCHEMA, stop=stop, after_build=after_build)
    lander.join()
    loaded.spark.stop()

    per_batch = []
    for batch, landed in sorted(lander.landed.items()):
        build = builds[taken[batch] - 1]
        per_batch.append(
            {
                "batch": batch - loaded.preload_batches,
                "build": taken[batch],
                "batches_in_build": len(build["batches"]),
                "landing_to_ads_s": build["ads_done_at"] - landed["at"],
                "landing_to_checked_s": build["checked_at"] - landed["at"],
            }
        )
    to_ads = [b["landing_to_ads_s"] for b in per_batch]
    checked = [b["landing_to_checked_s"] for b in per_batch]
    return {
        "preload": preload,
        "batch_events": args.batch_events,
        "interval_s": args.interval,
        "preload_s": loaded.preload_s,
        "median_to_ads_s": statistics.median(to_ads),
        "worst_to_ads_s": max(to_ads),
        "median_to_checked_s": statistics.median(checked),
        "worst_to_checked_s": max(checked),
        "builds": len(builds),
        "per_batch": per_batch,
        "per_build": [
            {
                "batches": b["batches"],
                "build_s": b["build_s"],
                "seconds": b["seconds"],
                "compaction_s": b.get("compaction_s", 0.0),
            }
            for b in builds
        ],
    }


def summarise(runs: list[dict]) -> None:
    for run in runs:
        print(f"\npreloaded {run['preload']:,}, a batch every {run['interval_s']:.0f} s:")
        print(f"{'batch':>5} {'build':>5} {'in build':>8} {'to ADS s':>8} {'to checked s':>12}")
        for b in run["per_batch"]:
            print(
                f"{b['batch']:>5} {b['build']:>5} {b['batches_in_build']:>8} "
                f"{b['landing_to_ads_s']:>8.1f} {b['landing_to_checked_s']:>12.1f}"
            )
        print(
            f"landing to ADS: median {run['median_to_ads_s']:.1f} s, worst {run['worst_to_ads_s']:.1f} s; "
            f"landing to checked: median {run['median_to_checked_s']:.1f} s, "
            f"worst {run['worst_to_checked_s']:.1f} s; {run['builds']} builds"
        )
    if len(runs) > 1:
        small, large = runs[0], runs[-1]
        print(
            f"median to ADS at {large['preload']:,} / at {small['preload']:,}: "
            f"{large['median_to_ads_s'] / small['median_to_ads_s']:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_preload_arguments(parser, default_batches=10)
    parser.add_argument(
        "--interval", type=float, default=60.0, help="seconds between landings (default 60)"
    )
    args = parser.parse_args()
    sizes = args.preload or [1_000_000]
    if args.one:
        children.report(run_one(args, sizes[0], args.work))
        return
    runs = run_sizes(__spec__.name, args, sizes, ["--interval", str(args.interval)])
    summarise(runs)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
