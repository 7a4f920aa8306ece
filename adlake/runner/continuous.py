"""Continuous mode: watch the landing folder and build each batch as it lands,
in one process, so every build after the first runs in a warm Spark JVM with
the project already parsed.

    python -m adlake.runner.continuous [--poll 0.5] [--settle 0.5] [--full-checks-every 4]
                                       [--checks-every 2] [--checks-in-build]

(or `adlake-continuous ...`).

A batch is whatever landed since the last build: the watcher waits until no
new file has appeared for --settle seconds (a producer landing several files
at once gets one build), then builds it. Files must land whole, by
a rename, as adlake.landing does: a name starting with `.` is still being
written and is ignored (Spark skips such files too). ADLAKE_LANDING_DIR may
name a bucket's prefix (s3a://bucket/prefix), where each object lands whole;
the watcher then lists it through the store that ADLAKE_S3_ENDPOINT names,
with the keys of ADLAKE_S3_ACCESS_KEY and ADLAKE_S3_SECRET_KEY.

A batch's models run first (a `dbt build` without data tests: seeds, models),
and the data tests after them: a `dbt test` of what the models of the batches
since the last check wrote (the var lakehouse_changed_since gives each table's
latest instant before the first of them), after every --checks-every batches
(2) when the check ends before the next batch is due (Cadence), else
after twice that many, whatever it holds up; when nothing new has landed and
the check fits; and when the watcher stops. A process's first check reads
whole tables; so does one every 4th build, in pieces, each in a quiet moment
it fits in (Checks: what is left of it after 4 more builds runs at once, and
a whole-table check due when the watcher stops runs whole). On two cores a
check costs about what the models of a batch cost, and mostly per test, not
per row: checking two batches at once leaves a steady stream's next batch
the room to run its models as soon as it lands.

So ADS holds a batch's figures before its checks end: a dashboard can show
figures that are not checked yet, for one to four batch intervals with the
defaults (the figures' `checked_at` says when they were). If a check fails the watcher stops, saying
so; the unchecked batches are not recorded as built, so the next start runs
them again (nothing new to ingest: their files are in) and checks whole
tables, until the cause is fixed. Every check a `dbt build` of each batch would
run still runs, on the same rows. With --checks-in-build a batch is one `dbt
build` instead: each model's checks pass before its downstream models run,
and ADS waits for them.

For each batch it prints the lines that came in (valid, quarantined, held),
the time per layer and for the data tests, and the latency from landing (the
earliest new file's modification time) to the end of the last ADS model.

Compaction of DWD's merge-on-read log files is not done in the build: the
build's write only plans it (var dwd_compaction_mode: schedule) and the
watcher runs the plan after the build (the adapter's lake_compact_scheduled),
so no batch's latency includes it; its seconds are printed after the batch.

Ctrl-C stops between batches: a build in progress completes first (press it
again to stop at once; the next run completes that batch exactly once, as
after a crash). The files already built are recorded in
<lake>/continuous_state.json after each build, so a restart builds only what
landed since; a build that did not complete is built again, and the warehouse
ingests each landed file exactly once whatever happens. A build that fails (a
failing data test included) stops the watcher, pointing at dbt's log; the next
start builds that batch again.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC
from pathlib import Path
from typing import Any

from adlake import ROOT, s3_client
from adlake.landing import BUCKET_SCHEMES
from adlake.runner.readers import profile_target, reader_session
from adlake.runner.warehouse import (
    SCHEMA,
    Builds,
    at_least_one,
    billing_lines,
    latest_instants,
    tally,
)

Snapshot = dict[str, tuple[int, int]]  # relative path -> (size, mtime in ns)


def landed_files(landing: Path | str) -> Snapshot:
    """Every file landed whole under `landing` (none still hidden): a folder,
    or a bucket's prefix (s3a://bucket/prefix, listed through the store that
    ADLAKE_S3_ENDPOINT names: adlake.landing)."""
    if str(landing).startswith(BUCKET_SCHEMES):
        return landed_objects(str(landing))
    landing = Path(landing)
    if not landing.is_dir():
        return {}
    found = {}
    for path in landing.rglob("*"):
        relative = path.relative_to(landing)
        if path.is_file() and not any(part.startswith(".") for part in relative.parts):
            stat = path.stat()
            found[str(relative)] = (stat.st_size, stat.st_mtime_ns)
    return found


def landed_objects(uri: str) -> Snapshot:
    """landed_files of a bucket's prefix: each object's size and time."""
    bucket, _, prefix = uri.split("://", 1)[1].partition("/")
    prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
    found = {}
    for key, (size, modified) in s3_client.from_environment().list_objects(bucket, prefix).items():
        relative = key[len(prefix) :]
        if not any(part.startswith(".") for part in relative.split("/")):
            found[relative] = (size, modified)
    return found


class State:
    """The landing files the last completed build saw, kept in a JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.built: Snapshot = {}
        if path.exists():
            self.built = {
                name: tuple(value) for name, value in json.loads(path.read_text()).items()
            }

    def note(self, landed: Snapshot) -> None:
        """Built in this process, not saved yet: a batch whose checks are to
        come is built again after a restart."""
        self.built = dict(landed)

    def new_files(self, landed: Snapshot) -> Snapshot:
        return {name: value for name, value in landed.items() if self.built.get(name) != value}

    def save(self, landed: Snapshot) -> None:
        self.built = dict(landed)
        partial = self.path.with_name("." + self.path.name + ".tmp")
        partial.write_text(json.dumps(self.built))
        os.replace(partial, self.path)


class StopRequest:
    """The first Ctrl-C asks to stop between batches; the second stops at once."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum, frame) -> None:
        if self.requested:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        self.requested = True
        print("\nstopping after this batch (Ctrl-C again to stop now)", flush=True)


def _epoch(moment) -> float:
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def finished_at(result) -> float:
    """When a node finished executing, in seconds since the epoch."""
    ends = [t.completed_at for t in result.timing if t.name == "execute" and t.completed_at]
    return _epoch(ends[-1]) if ends else 0.0


def started_at(result) -> float:
    """When a node started compiling, in seconds since the epoch."""
    starts = [t.started_at for t in result.timing if t.started_at]
    return _epoch(starts[0]) if starts else 0.0


def batch_figures(results: list, new: Snapshot, before: dict | None, after: dict) -> dict:
    """One build's figures (`results`: its dbt invocations, a `dbt build`, or
    one without data tests and the `dbt test` after it): billing lines in (None for the
    process's first build: there is no count from before it), seconds per
    layer and for the tests, each node's seconds and span, latency from
    landing to ADS."""
    seconds: dict[str, float] = defaultdict(float)
    nodes: dict[str, float] = {}  # each model's and test's own seconds, for a profile
    spans: dict[str, list[float]] = {}  # each node's [start, end] since landing: the critical path
    ads_done = 0.0
    landed_at = min(mtime for _, mtime in new.values()) / 1e9
    for node_result in (r for result in results for r in result.result.results):
        node = node_result.node
        nodes[node.name] = node_result.execution_time
        if finished_at(node_result):
            spans[node.name] = [
                round(started_at(node_result) - landed_at, 2),
                round(finished_at(node_result) - landed_at, 2),
            ]
        if node.resource_type == "test":
            seconds["tests"] += node_result.execution_time
        elif node.resource_type in ("model", "seed") and len(node.fqn) > 2:
            layer = node.fqn[1]
            seconds[layer] += node_result.execution_time
            if layer == "ads":
                ads_done = max(ads_done, finished_at(node_result))
    return {
        "files": len(new),
        "lines_in": None if before is None else {key: after[key] - before[key] for key in after},
        "lines_total": after,
        "seconds": dict(seconds),
        "nodes": nodes,
        "spans": spans,
        "landing_to_ads": ads_done - landed_at if ads_done else None,
        # Seconds since the epoch: the earliest new file landed, the last ADS model done.
        "landed_at": landed_at,
        "ads_done_at": ads_done or None,
    }


def describe(label: str, figures: dict, build_seconds: float, scope: str, statuses: str) -> str:
    lines = figures["lines_in"]
    if lines is None:
        total = figures["lines_total"]
        lines_text = (
            f"warehouse now: {total['landed']:,} lines = {total['valid']:,} valid + "
            f"{total['quarantined']:,} quarantined + {total['held']:,} held"
        )
    else:
        lines_text = (
            f"{lines['landed']:,} lines in ({lines['valid']:+,} valid, "
            f"{lines['quarantined']:+,} quarantined, {lines['held']:+,} held)"
        )
    # Layers in build order, then the tests; any other model folder last.
    order = ["ods", "dwd", "dws", "ads", "tests"]
    seconds = sorted(
        figures["seconds"].items(),
        key=lambda item: order.index(item[0]) if item[0] in order else len(order),
    )
    layers = ", ".join(f"{name} {s:.1f} s" for name, s in seconds)
    latency = figures["landing_to_ads"]
    return (
        f"{label}: {figures['files']} files, {lines_text}; {layers}; checks {scope}; "
        f"build {build_seconds:.1f} s; landing to ADS {'-' if latency is None else f'{latency:.1f} s'} "
        f"[{statuses}]"
    )


class Cadence:
    """When batches land, to tell whether a check started now ends before the
    next one is due: a check in progress cannot be interrupted, and a batch
    that lands during it waits for it. The next landing is expected one
    typical gap (the median of the last few) after the last; half a gap past
    that moment with nothing new, the stream has paused and anything fits.
    Before two landings there is no gap to go by: a check starts once the
    folder has stayed quiet, since the last build ended, for twice as long as
    the check should take (a stream faster than that lands its next batch
    first). Waiting only as long as the check started the first check of a
    1M stream as its second batch landed, which then waited 19 s for it."""

    KEPT = 5  # landings whose gaps make the typical gap

    def __init__(self) -> None:
        self.landings: list[float] = []  # when the last builds' batches landed (epoch s)
        self.quiet_since = time.time()  # when the last build ended

    def landed(self, new: Snapshot) -> None:
        """A build takes `new`: it landed with its earliest file (its
        modification time; the watcher may have been busy when it came)."""
        at = min(mtime for _, mtime in new.values()) / 1e9
        self.landings = [*self.landings, at][-self.KEPT :]

    def built(self) -> None:
        self.quiet_since = time.time()

    def room(self) -> float:
        """The seconds that work started now may take and still end before
        the next landing is due (infinite once that landing is overdue)."""
        now = time.time()
        if len(self.landings) < 2:
            return (now - self.quiet_since) / 2
        gaps = sorted(b - a for a, b in zip(self.landings, self.landings[1:], strict=False))
        gap = gaps[len(gaps) // 2]
        due = self.landings[-1] + gap
        return math.inf if now >= due + gap / 2 else due - now

    def fits(self, seconds: float) -> bool:
        """Whether work of `seconds` started now ends before the next landing
        is due, or that landing is overdue."""
        return seconds <= self.room()


def next_piece(
    remaining: list[str], seconds: dict[str, float], room: float, cores: int
) -> tuple[list[str], float]:
    """The data tests of a whole-table check to run now, and the seconds they
    should take: as many of `remaining`, in order, as fit in `room` seconds by
    their last times (each test's seconds spread over `cores`; one never timed
    counts as the mean of those that were, 1 s before any); none if the first
    does not."""
    default = sum(seconds.values()) / len(seconds) if seconds else 1.0
    piece: list[str] = []
    used = 0.0
    for name in remaining:
        took = seconds.get(name, default) / cores
        if used + took > room:
            break
        piece.append(name)
        used += took
    return piece, used


PIECE_SCALE_FROM = 2.0  # seconds: see Checks.piece_scale


class Checks:
    """The data tests of the batches whose models ran, when they run after
    the models (builds.checks_after_models): a `dbt test` of what those
    batches wrote, every `every` batches when it fits before the next batch
    is due (Cadence; else every 2 * `every`), and sooner when the stream
    leaves room for it. The cost of a check is mostly per test, not per
    row: one check of two batches costs about what one of one batch does,
    and leaves a stream's next batch room to run first.

    A whole-table check, due every few builds, runs in pieces (next_piece),
    each when the folder is quiet and it ends before the next batch is due
    (it reads every row: at 10M events the whole check takes longer than a
    batch interval). Each piece checks whole tables as they are then, so it
    marks no batch checked: the batches' own checks do, and go on meanwhile.
    What is left of it after as many builds again runs at once, whatever it
    holds up, but not in a build that already ran a check of batches (one
    such stall a build, not two back to back: the next build runs it); a
    whole-table check due when the watcher stops runs whole."""

    def __init__(self, builds: Builds, reader: Callable[[], Any], every: int) -> None:
        self.builds, self.reader, self.every = builds, reader, every
        # Each table's latest instant before the first unchecked batch: the
        # checks read what came after. Read once the last check and its
        # batch's compactions are done; unknown before the process's first
        # dbt command (its session is the one to read with): whole tables.
        self.since: dict[str, str] = {}
        self.batches: list[dict] = []  # the figures of the unchecked batches
        self.landed: Snapshot = {}  # what they had landed, all of it
        self.last_s: float | None = None  # the last check of batches' wall seconds
        self.last_full_s: float | None = None  # the last whole-table check's
        self.full_due_at: int | None = None  # the build a whole-table check fell due at
        self.sweep: list[str] = []  # its data tests not run yet
        self.test_s: dict[str, float] = {}  # each data test's seconds, the last time it ran
        self.whole_test_s: dict[str, float] = {}  # ... the last time it read whole tables
        # The last piece's seconds over what its tests' times predicted
        # (1 to 2): a test's time from a check of batches, before it has read
        # whole tables, is short of a piece's, and a piece has dbt's start on
        # top. Taken from pieces expected to take PIECE_SCALE_FROM seconds or
        # more, and capped: a piece of a few short tests is mostly that start.
        self.piece_scale = 1.0
        if builds.checks_after_models and builds.manifest is not None:
            self.refresh()

    def refresh(self) -> None:
        self.since = latest_instants(self.reader(), self.builds.tables())

    def add(self, figures: dict, landed: Snapshot) -> None:
        self.batches.append(figures)
        self.landed = landed

    def want_full(self, build: int) -> None:
        if self.full_due_at is None:
            self.full_due_at = build
            self.sweep = self.builds.data_tests()

    def run_piece(self, room: float) -> bool:
        """Runs the next piece of the whole-table check due, if one fits in
        `room` seconds; whether one ran."""
        seconds = {**self.test_s, **self.whole_test_s}
        piece, expected = next_piece(
            self.sweep, seconds, room / self.piece_scale, os.cpu_count() or 1
        )
        if not piece:
            return False
        started = time.monotonic()
        with self._stops_on_failure("whole-table check: a piece of"):
            result = self.builds.build("full", command="test", select=piece)
        took = time.monotonic() - started
        self._timed(result, whole=True)
        predicted = expected * self.piece_scale
        if expected >= PIECE_SCALE_FROM:
            self.piece_scale = min(max(took / expected, 1.0), 2.0)
        self.sweep = self.sweep[len(piece) :]
        print(
            f"whole-table check: {len(piece)} data tests in {took:.1f} s "
            f"(expected {predicted:.1f} s) "
            f"[{tally(result)}]; {len(self.sweep)} to go",
            flush=True,
        )
        if not self.sweep:
            self.full_due_at = None
        return True

    def finish_sweep(self) -> None:
        """What is left of the whole-table check due, at once."""
        if self.sweep:
            self.run_piece(math.inf)
        self.full_due_at = None

    @contextmanager
    def _stops_on_failure(self, what: str) -> Iterator[None]:
        """A failing check stops the watcher (Builds exits): say what that
        leaves. `what` begins the sentence, before "checks failed"."""
        try:
            yield
        except SystemExit:
            pending = ", ".join(str(f["number"]) for f in self.batches) or "none"
            print(
                f"{what} checks failed (see dbt.log): the watcher stops. The batches not "
                f"checked yet ({pending}) stay unrecorded: after the fix, the next start runs "
                "them again (their files are in already; nothing is ingested twice) and checks "
                "whole tables.",
                flush=True,
            )
            raise

    def _timed(self, result: Any, whole: bool) -> None:
        times = self.whole_test_s if whole else self.test_s
        for node_result in result.result.results:
            times[node_result.node.name] = node_result.execution_time

    def due(self, cadence: Cadence, models_s: float) -> bool:
        """After a build: `every` batches are pending and their check ends
        before the next batch is due, or twice that many, whatever it holds
        up (a check that never fits, at 10M events, then runs every 2 *
        `every` batches: the stream keeps up, a batch in that many waits)."""
        pending = len(self.batches)
        return pending >= 2 * self.every or (
            pending >= self.every and cadence.fits(self.estimate(False, models_s))
        )

    def full_overdue(self, build: int, every: int) -> bool:
        return self.full_due_at is not None and build - self.full_due_at >= every

    def finish_if_overdue(self, build: int, every: int, checked_batches: bool) -> None:
        """After `build`: what is left of a whole-table check due `every`
        builds ago runs now, unless this build checked its batches; then
        after the next build, so that no batch waits for both."""
        if self.full_overdue(build, every + (1 if checked_batches else 0)):
            self.finish_sweep()

    def estimate(self, full: bool, models_s: float) -> float:
        """A check's expected seconds: the last of its kind; before any, a
        batch's models' (about what checking a batch costs on two cores), and
        twice that for whole tables."""
        if full or not self.since:
            return self.last_full_s or 2 * (self.last_s or models_s)
        return self.last_s or models_s

    def run(self, state: State, full: bool) -> tuple[Any, str]:
        """Checks the pending batches (or, with `full`, whole tables);
        records them as built once they pass."""
        scope = "full" if full or not self.since else "changed"
        numbers = ", ".join(str(f["number"]) for f in self.batches) or "(none new)"
        started = time.monotonic()
        with self._stops_on_failure(f"batches {numbers}: their figures are in ADS, but their"):
            result = self.builds.build(
                scope, command="test", changed_since=self.since if scope == "changed" else None
            )
        checked_at = time.time()
        self._timed(result, whole=scope == "full")
        if scope == "full":  # whole tables, every test: any sweep is done too
            self.last_full_s = time.monotonic() - started
            self.full_due_at = None
            self.sweep = []
        else:
            self.last_s = time.monotonic() - started
        for figures in self.batches:
            figures["checked_at"] = checked_at
        print(
            f"batches {numbers}: checked ({'whole tables' if scope == 'full' else 'what they wrote'}) "
            f"in {sum(r.execution_time for r in result.result.results):.1f} s of tests "
            f"[{tally(result)}]",
            flush=True,
        )
        state.save(self.landed)
        self.batches = []
        return result, scope


def watch(
    landing: Path | str,
    state: State,
    builds: Builds,
    schema: str = SCHEMA,
    poll: float = 0.5,
    settle: float = 0.5,
    full_checks_every: int = 4,
    max_builds: int | None = None,
    stop: Callable[[], bool] | None = None,
    reader: Callable[[], Any] | None = None,
    after_build: Callable[[dict], None] | None = None,
    checks_every: int = 2,
) -> list[dict]:
    """Builds each batch as it lands until `stop()` is true (checked between
    batches and while idle) or `max_builds` builds have run; returns each
    build's figures. `reader` gives a session to count the billing lines
    with (default: a child of the embedded session dbt started here).
    `after_build` is called with each build's figures once its scheduled
    compactions ran (a benchmark checks the totals there). With
    builds.checks_after_models, the data tests run every `checks_every`
    batches (Checks); a batch's figures get `checked_at` when they passed."""
    reader = reader or (lambda: reader_session("session", None))
    stop = stop or (lambda: False)
    done: list[dict] = []
    lines_before = None
    checks = Checks(builds, reader, checks_every)
    cadence = Cadence()
    models_s = 0.0  # the last build's models' seconds
    while not stop() and (max_builds is None or len(done) < max_builds):
        landed = landed_files(landing)
        new = state.new_files(landed)
        if not new:
            # Quiet: check the pending batches if that fits, else run a
            # piece of a whole-table check due if one fits.
            if checks.batches and cadence.fits(checks.estimate(False, models_s)):
                checks.run(state, full=False)
                checks.refresh()
            elif checks.sweep and checks.run_piece(cadence.room()):
                continue  # look at the folder again before the next piece
            time.sleep(poll)
            continue
        time.sleep(settle)
        if landed_files(landing) != landed:
            continue  # still landing: wait for it to settle
        cadence.landed(new)
        number = len(done) + 1
        full = number % full_checks_every == 0
        started = time.perf_counter()
        if builds.checks_after_models:
            results = [builds.build("full" if full else "changed", tests=False)]
        else:
            results = [builds.build("full" if full else "changed")]
        models_s = time.perf_counter() - started
        lines_after = billing_lines(reader(), schema)
        figures = batch_figures(results, new, lines_before, lines_after)
        figures.update({"number": number, "new_files": sorted(new), "models_s": models_s})
        lines_before = lines_after
        checked = "pending"
        if builds.checks_after_models:
            checks.add(figures, landed)
            state.note(landed)
            if full:
                checks.want_full(number)
            last = stop() or (max_builds is not None and len(done) + 1 >= max_builds)
            checks_now = last or checks.due(cadence, models_s)
            if checks_now:
                result, scope = checks.run(state, full=last and checks.full_due_at is not None)
                results.append(result)
                with_checks = batch_figures(results, new, None, lines_after)
                figures.update({k: with_checks[k] for k in ("seconds", "nodes", "spans")})
                checked = "of whole tables" if scope == "full" else "of what it wrote"
            checks.finish_if_overdue(number, full_checks_every, checked_batches=checks_now)
        else:
            figures["checked_at"] = time.time()
            state.save(landed)
            checked = "of whole tables" if full else "of what it wrote"
        figures["built_at"] = time.time()
        figures["build_s"] = time.perf_counter() - started
        print(
            describe(f"batch {number}", figures, figures["build_s"], checked, tally(*results)),
            flush=True,
        )
        if builds.compact_between_builds:
            figures["compaction_s"] = builds.compact_scheduled()
            print(
                f"batch {number}: scheduled compactions run in {figures['compaction_s']:.1f} s",
                flush=True,
            )
        if builds.checks_after_models and not checks.batches:
            checks.refresh()
        if after_build is not None:
            after_build(figures)
        done.append(figures)
        cadence.built()
    if checks.batches or checks.full_due_at is not None:
        checks.run(state, full=checks.full_due_at is not None)
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--poll", type=float, default=0.5, help="seconds between looks at the landing folder"
    )
    parser.add_argument(
        "--settle", type=float, default=0.5, help="seconds with no new file before a batch is built"
    )
    parser.add_argument(
        "--full-checks-every",
        type=at_least_one,
        default=4,
        metavar="N",
        help="data tests read whole tables every N builds, in pieces that fit between "
        "batches (what is left after N more builds, at once); the others check what they wrote",
    )
    parser.add_argument(
        "--checks-every",
        type=at_least_one,
        default=2,
        metavar="N",
        help="run the data tests after every N batches' models, checking what they wrote, "
        "when the check ends before the next batch is due, else after 2N (default 2; sooner "
        "when the landing folder is quiet and the check fits)",
    )
    parser.add_argument(
        "--checks-in-build",
        action="store_true",
        help="one `dbt build` a batch: each model's checks pass before its downstream models "
        "run (ADS later); default: `dbt run`, then `dbt test` of what it wrote",
    )
    args = parser.parse_args()

    os.chdir(ROOT)  # the lake (.lake/) lives in the project folder
    lake = ROOT / os.environ.get("ADLAKE_LAKE_DIR", ".lake")
    # A folder, or a bucket's prefix (s3a://...: listed through ADLAKE_S3_ENDPOINT).
    landing: Path | str = os.environ.setdefault("ADLAKE_LANDING_DIR", str(lake / "landing"))
    if not landing.startswith(BUCKET_SCHEMES):
        landing = Path(landing)
    lake.mkdir(parents=True, exist_ok=True)
    stop = StopRequest()
    signal.signal(signal.SIGINT, stop)
    # The profile's target (ADLAKE_TARGET): on a server, the billing lines
    # are counted through the server too, never in an embedded JVM here.
    target, method, port = profile_target()
    print(f"watching {landing} on target {target} (Ctrl-C stops between batches)", flush=True)
    watch(
        landing,
        State(lake / "continuous_state.json"),
        Builds(compact_between_builds=True, checks_after_models=not args.checks_in_build),
        poll=args.poll,
        settle=args.settle,
        full_checks_every=args.full_checks_every,
        stop=lambda: stop.requested,
        reader=lambda: reader_session(method, port),
        checks_every=args.checks_every,
    )
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
