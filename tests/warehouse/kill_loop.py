"""Random kill trials of the warehouse's `dbt build`: each trial kills the build
of one batch with SIGKILL (its whole process group: Python and the Spark JVM)
at a random moment, runs the batch again at once, and compares every table of
every layer with an uninterrupted build of the same batches.

    python -m tests.warehouse.kill_loop [--trials 20] [--seed 1] [--batches 4]
        [--events 1500] [--with-tests] [--work DIR] [--keep]

First the reference: one child per batch (tests/warehouse/warehouse_batches.py,
on generated data, with a lake of its own), each printing the digest of every
table after its batch; the lake and the landing folder are copied after each
batch (a lake cannot move: its metastore holds the tables' absolute paths, so
a trial puts the copy back in the same place). Then each trial draws a batch
and a delay within that batch's duration in the reference (its child's start
included) from one seeded random.Random, restores the lake as it was before
that batch, starts a child on the batch, kills it after the delay, starts the
next at once on the same batch with --digest, and compares: every table's rows
(count and an order-independent hash, without Hudi's meta columns and the
ingestion timestamps) and each landed file's lines against its rows in ODS. A
child that ends before its delay is no trial; another is drawn. It prints a
line per trial (the batch, the moment, the node dbt was running, what the lake
held in flight: pending instants on each table's timeline and scratch folders
written) and exits 1 if any rerun failed or any table differs.

The builds leave out the data tests (`--no-tests`) unless --with-tests; the
dwd_billing_events table services run often (compaction after every delta
commit, one commit's file versions kept), as in test_killed_warehouse.py.
On a 2-core machine a trial takes 2 to 3 minutes.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adlake.generator import generate
from tests.warehouse.warehouse_batches import (
    REPO,
    Child,
    Work,
    check_landed,
    compare_digests,
    in_flight,
    lake_state,
    parse_digest,
    prepare_work,
    running_node,
)

SCHEMA = "crash"
VARS = {"dwd_compaction_delta_commits": 1, "dwd_cleaning_retain": 1}


def save(work: Work, snapshot: Path) -> None:
    snapshot.mkdir(parents=True)
    if work.lake.exists():
        shutil.copytree(work.lake, snapshot / "lake", symlinks=True)
    shutil.copytree(work.landing, snapshot / "landing", symlinks=True)


def restore(work: Work, snapshot: Path) -> None:
    shutil.rmtree(work.lake, ignore_errors=True)
    shutil.rmtree(work.landing, ignore_errors=True)
    if (snapshot / "lake").exists():
        shutil.copytree(snapshot / "lake", work.lake, symlinks=True)
    shutil.copytree(snapshot / "landing", work.landing, symlinks=True)


def hudi_jar() -> Path:
    from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle

    return hudi_bundle.locate(cache_dir=REPO / ".cache" / "jars")


def build_reference(
    work: Work, batches: int, options: list[str], snapshots: Path
) -> tuple[dict[int, dict[str, tuple[int, int]]], dict[int, float]]:
    """Digests after each batch and each batch's duration (a child per batch, its start included)."""
    save(work, snapshots / "0")
    digests, durations = {}, {}
    for batch in range(1, batches + 1):
        with Child(work, batch, batch, *options, "--digest", tag=f"reference_{batch}") as child:
            if child.finish() != 0:
                sys.exit(f"the reference build of batch {batch} failed:\n{child.tail()}")
        digests[batch], landed = parse_digest(child.output())
        durations[batch] = child.done_times()[batch]
        problems = check_landed(work, landed)
        if problems:
            sys.exit(
                f"the reference build of batch {batch} lost or repeated landed lines:\n"
                + "\n".join(problems)
            )
        save(work, snapshots / str(batch))
        print(
            f"reference batch {batch}: {len(digests[batch])} tables, {durations[batch]:.1f} s",
            flush=True,
        )
    return digests, durations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20, help="kill trials (default 20)")
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the trials' batches and delays"
    )
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument(
        "--with-tests", action="store_true", help="run the data tests in every build"
    )
    parser.add_argument(
        "--work", type=Path, help="folder for the lakes and logs (default: a new temporary one)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()

    root = args.work or Path(tempfile.mkdtemp(prefix="adlake-kill-loop-"))
    root.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    generate(
        root / "generated",
        seed=12,
        events=args.events,
        batches=args.batches,
        accounts=30,
        late_accounts=2,
        force=True,
    )
    work = prepare_work(root / "work", SCHEMA, root / "generated", hudi_jar())
    options = ["--vars", json.dumps(VARS)] + ([] if args.with_tests else ["--no-tests"])
    print(f"work folder {root}", flush=True)
    digests, durations = build_reference(work, args.batches, options, root / "snapshots")

    rng = random.Random(args.seed)
    failures: list[str] = []
    trial = drawn = 0
    while trial < args.trials and drawn < 3 * args.trials:
        drawn += 1
        batch = rng.randint(1, args.batches)
        delay = rng.uniform(0, durations[batch])
        restore(work, root / "snapshots" / str(batch - 1))
        armed = lake_state(work)
        with Child(work, batch, batch, *options, tag="trial") as child:
            try:
                child.finish(timeout=delay)
            except subprocess.TimeoutExpired:  # still running at the delay: finish() killed it
                pass
        if child.process.returncode == 0:
            print(
                f"(batch {batch}: the run ended before {delay:.1f} s: no kill, drawn again)",
                flush=True,
            )
            continue
        if child.process.returncode != -signal.SIGKILL:
            failures.append(f"batch {batch}: the run failed before its kill:\n{child.tail()}")
            print(f"(batch {batch}: the run FAILED before its kill at {delay:.1f} s)", flush=True)
            continue
        trial += 1
        running = running_node(child.output())
        flight = in_flight(work, armed, running)
        running = running or "- (dbt had started no node)"
        trial_started = time.monotonic()
        with Child(work, batch, batch, *options, "--digest", tag="rerun") as rerun:
            rerun.finish()
        if rerun.process.returncode != 0:
            verdict = "RERUN FAILED"
            failures.append(f"trial {trial}: the rerun failed:\n{rerun.tail()}")
        else:
            actual, landed = parse_digest(rerun.output())
            problems = compare_digests(digests[batch], actual) + check_landed(work, landed)
            verdict = "digests match" if not problems else "DIGESTS DIFFER: " + "; ".join(problems)
            if problems:
                failures.append(f"trial {trial}: " + "\n".join(problems))
        print(
            f"trial {trial}/{args.trials}: batch {batch}, killed {delay:.1f} s after start "
            f"(of {durations[batch]:.1f} s), running {running}; in flight: {', '.join(flight) or 'nothing'}; "
            f"rerun {time.monotonic() - trial_started:.0f} s: {verdict}",
            flush=True,
        )

    elapsed = time.monotonic() - started
    print(
        f"\n{trial} kill trials ({drawn} drawn), {len(failures)} failed, {elapsed / 60:.1f} min; work folder {root}"
    )
    for failure in failures:
        print(failure)
    if not args.keep and not failures and args.work is None:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if failures or trial < args.trials else 0)


if __name__ == "__main__":
    main()
