"""Profile one micro-batch: where each second goes, from landing to ADS.

It builds a warehouse of its own (generated data, the embedded Spark), lands
the batches before the profiled one and builds each, then lands the profiled
batch and runs `dbt parse` and `dbt build` on it with everything recorded:

- per dbt step: parse, compile, the model runs, the data tests, the rest
  (dbt's start-up, catalog caching, hooks);
- per model and per data test: their times, from dbt's run results;
- inside each model's write, from Spark's event log and Hudi's descriptions of
  its jobs (adlake.bench.spark_jobs): the Hudi write (with the model's SELECT),
  index lookup, metadata table, markers, compaction, cleaning, archiving,
  other Spark queries, and the time spent outside any Spark job (the driver:
  timeline and commit files, locks, dbt's own statements and Python);
- per model, the SQL statements dbt sent and their time.

It prints the top costs, and writes everything as JSON with --json.

The batches before the profiled one are built one `dbt build` each, or, with
--preload-chunk K, landed K at a time and built with one `dbt run` per chunk
(a large warehouse in minutes; what is profiled is still the last batch's
build). --scope changed profiles the build continuous mode runs on a batch
(data tests of what it wrote, the per_batch selector); --threads sets dbt's.

    python -m adlake.bench.profile_batch [--events 20000] [--batches 2] [--seed 7]
                                         [--lake DIR] [--top 12] [--json FILE] [--vars YAML]
                                         [--preload-chunk K] [--scope full|changed] [--threads N]

(or `adlake-profile-batch ...`).
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
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import yaml

from adlake.bench.soak import write_profile
from adlake.bench.spark_jobs import PHASES, Job, covered_seconds, read_jobs
from adlake.generator import generate
from adlake.landing import land_batch
from adlake.runner.warehouse import work_args
from adlake.timeline import instants_between
from dbt.adapters.lakehouse.writes import memory_staging

DRIVER = "driver, outside Spark jobs"
# dbt's unit tests check the models' SQL on fixed rows: no part of a batch.
NO_UNIT_TESTS = ["--exclude-resource-type", "unit_test"]


@dataclass
class Statement:
    node: str
    kind: str
    start: float
    seconds: float = 0.0
    # The statement's start, for the JSON: what was sent, not just its kind.
    text: str = ""


@dataclass
class NodeProfile:
    unique_id: str
    resource_type: str
    status: str
    compile_s: float
    execute_s: float
    execute_window: tuple
    phases: dict[str, float] = field(default_factory=dict)
    statements: dict[str, list[float]] = field(default_factory=dict)
    # Each statement in order: its kind, seconds and first characters.
    sent: list[tuple[str, float, str]] = field(default_factory=list)
    # Per action on its table's timeline and its metadata table's: the
    # seconds from requested to completed of each instant the run started.
    instants: dict[str, list[float]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.unique_id.split(".", 2)[-1]


LEADING_COMMENTS = re.compile(r"^\s*(/\*.*?\*/\s*|--[^\n]*\n\s*)*", re.S)
STATEMENT_KINDS = (
    ("write", ("merge", "insert", "update", "delete")),
    ("hudi procedure", ("call",)),
    ("query", ("select", "with", "(")),
    ("set or reset", ("set", "reset")),
    ("describe or show", ("describe", "desc", "show")),
)


def statement_kind(sql: str) -> str:
    """What a statement dbt sent is for, from its first word (after dbt's query
    comment); a query the adapter staged in memory (writes/memory_staging.py), by the
    comment it is logged with."""
    if sql.lstrip().startswith(memory_staging.LOG_PREFIX):
        return "staged batch"
    text = LEADING_COMMENTS.sub("", sql, count=1).lower()
    if re.match(r"create (or replace )?(global )?temp(orary)? view", text):
        return "temporary view"
    if text.startswith("create") and re.search(r"\bas\s*(\(|select|with)", text):
        return "write"
    for kind, heads in STATEMENT_KINDS:
        if text.startswith(heads):
            return kind
    return "other DDL"


class StatementRecorder:
    """A dbt event callback keeping each SQL statement's node, kind, start and
    duration (dbt fires SQLQuery before a statement, SQLQueryStatus after)."""

    def __init__(self) -> None:
        self.statements: list[Statement] = []
        self._open: dict[str, Statement] = {}

    def __call__(self, msg) -> None:
        name = msg.info.name
        if name == "SQLQuery":
            ts = msg.info.ts.seconds + msg.info.ts.nanos / 1e9
            node = msg.data.node_info.unique_id or "(no node)"
            sql = LEADING_COMMENTS.sub("", msg.data.sql, count=1)
            self._open[msg.info.thread] = Statement(
                node, statement_kind(msg.data.sql), ts, text=" ".join(sql.split())[:240]
            )
        elif name == "SQLQueryStatus":
            statement = self._open.pop(msg.info.thread, None)
            if statement is not None:
                statement.seconds = float(msg.data.elapsed)
                self.statements.append(statement)


def epoch(moment: datetime | None) -> float:
    if moment is None:
        return 0.0
    if moment.tzinfo is None:  # dbt's timings are naive UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def node_profiles(
    results, jobs: list[Job], statements: list[Statement], warehouse: Path
) -> list[NodeProfile]:
    profiles = []
    for result in results:
        timing = {t.name: (epoch(t.started_at), epoch(t.completed_at)) for t in result.timing}
        compile_s = max(0.0, timing.get("compile", (0, 0))[1] - timing.get("compile", (0, 0))[0])
        window = timing.get("execute", (0.0, 0.0))
        profile = NodeProfile(
            result.node.unique_id,
            str(result.node.resource_type),
            str(result.status),
            compile_s,
            max(0.0, window[1] - window[0]),
            window,
        )
        inside = [j for j in jobs if j.start >= window[0] and j.end <= window[1] + 0.5]
        for phase in PHASES:
            seconds = sum(j.seconds for j in inside if j.phase == phase)
            if seconds:
                profile.phases[phase] = seconds
        profile.phases[DRIVER] = max(
            0.0, profile.execute_s - covered_seconds((j.start, j.end) for j in inside)
        )
        for statement in statements:
            if statement.node == profile.unique_id:
                profile.statements.setdefault(statement.kind, []).append(statement.seconds)
                profile.sent.append((statement.kind, round(statement.seconds, 3), statement.text))
        if profile.resource_type == "model":
            table_dir = (
                warehouse / f"{result.node.schema}.db" / (result.node.alias or result.node.name)
            )
            for instant in instants_between(table_dir, window[0], window[1]):
                profile.instants.setdefault(instant.action, []).append(instant.seconds or 0.0)
        profiles.append(profile)
    return profiles


def dbt_invoke(args: list[str], work: Path, manifest=None, callbacks=None):
    from dbt.cli.main import dbtRunner

    runner = dbtRunner(manifest=manifest, callbacks=callbacks or [])
    result = runner.invoke(["--log-level", "warn", *args, *work_args(work)])
    if not result.success:
        sys.exit(f"dbt {args[0]} failed; see {work / 'logs' / 'dbt.log'}")
    return result.result


def report(profiles: list[NodeProfile], parse_s: float, build_s: float, top: int) -> dict:
    by_type: dict[str, list[NodeProfile]] = defaultdict(list)
    for profile in profiles:
        by_type[profile.resource_type].append(profile)
    models = by_type.get("model", [])
    tests = by_type.get("test", [])
    compile_s = sum(p.compile_s for p in profiles)
    steps = {"parse": parse_s, "compile": compile_s}
    for resource_type, nodes in sorted(by_type.items()):
        steps[f"{resource_type}s"] = sum(p.execute_s for p in nodes)
    steps["rest of the build"] = max(
        0.0, build_s - sum(p.compile_s + p.execute_s for p in profiles)
    )
    phases: dict[str, float] = defaultdict(float)
    for model in models:
        for phase, seconds in model.phases.items():
            phases[phase] += seconds

    print(
        f"\nlanding to ADS: {parse_s + build_s:.1f} s (parse {parse_s:.1f} s, build {build_s:.1f} s); "
        f"{len(models)} models, {len(tests)} data tests"
    )
    print("\nper dbt step:")
    for step, seconds in sorted(steps.items(), key=lambda item: -item[1]):
        print(f"  {step:<28} {seconds:7.1f} s")
    print(f"\ninside the model runs ({sum(m.execute_s for m in models):.1f} s):")
    for phase, seconds in sorted(phases.items(), key=lambda item: -item[1]):
        print(f"  {phase:<28} {seconds:7.1f} s")
    actions: dict[str, list[float]] = defaultdict(list)
    for model in models:
        for action, seconds in model.instants.items():
            actions[action] += seconds
    print("\nHudi instants the models wrote, requested to completed (inside the runs above):")
    for action, seconds in sorted(actions.items(), key=lambda item: -sum(item[1])):
        print(f"  {action:<28} {sum(seconds):7.1f} s  ({len(seconds)})")
    print(f"\ntop {top} models:")
    for model in sorted(models, key=lambda m: -m.execute_s)[:top]:
        detail = ", ".join(
            f"{p} {s:.1f}"
            for p, s in sorted(model.phases.items(), key=lambda i: -i[1])
            if s >= 0.05
        )
        sql = ", ".join(f"{len(t)} {k} {sum(t):.1f}" for k, t in sorted(model.statements.items()))
        timeline = ", ".join(
            f"{len(t)} {k} {sum(t):.1f}" for k, t in sorted(model.instants.items())
        )
        print(
            f"  {model.execute_s:6.1f} s  {model.name} [{model.status}]\n"
            f"           phases: {detail}\n           statements: {sql or 'none'}\n"
            f"           timeline, requested to completed: {timeline or 'no instant'}"
        )
    print("\nwhen each model ran, seconds from the build's first node (its critical path):")
    first = min((m.execute_window[0] for m in models), default=0.0)
    for model in sorted(models, key=lambda m: m.execute_window):
        start, end = (at - first for at in model.execute_window)
        print(f"  {start:6.1f} -> {end:6.1f}  {model.name}")
    print(f"\ntop {top} data tests (all {len(tests)}: {sum(t.execute_s for t in tests):.1f} s):")
    for test in sorted(tests, key=lambda t: -t.execute_s)[:top]:
        print(f"  {test.execute_s:6.1f} s  {test.name}")
    return {
        "landing_to_ads_s": parse_s + build_s,
        "steps_s": steps,
        "model_phases_s": dict(phases),
        "nodes": [
            {
                "id": p.unique_id,
                "type": p.resource_type,
                "status": p.status,
                "compile_s": p.compile_s,
                "execute_s": p.execute_s,
                "phases_s": p.phases,
                "statements_s": {k: sum(v) for k, v in p.statements.items()},
                "instants_s": {k: sum(v) for k, v in p.instants.items()},
                "sent": p.sent,
            }
            for p in profiles
        ],
    }


def with_scope(dbt_vars: str, scope: str) -> str:
    """The --vars of a build with lakehouse_test_scope set to `scope`."""
    values = yaml.safe_load(dbt_vars) or {}
    if scope != "none":
        values["lakehouse_test_scope"] = scope
    return yaml.safe_dump(values, default_flow_style=True).strip()


def profile_batch(
    work: Path,
    events: int,
    batches: int,
    seed: int,
    top: int,
    dbt_vars: str,
    preload_chunk: int = 0,
    scope: str = "full",
    threads: int = 1,
) -> dict:
    lake, landing, generated, event_log = (
        work / "lake",
        work / "landing",
        work / "generated",
        work / "eventlog",
    )
    for folder in (lake, landing, event_log, work / "target"):  # a fresh warehouse every time
        shutil.rmtree(folder, ignore_errors=True)
    event_log.mkdir(parents=True)
    write_profile(
        work / "profiles",
        lake,
        threads=threads,
        spark_conf={"spark.eventLog.enabled": "true", "spark.eventLog.dir": event_log.as_uri()},
    )
    os.environ["ADLAKE_LANDING_DIR"] = str(landing)
    generate(generated, seed=seed, events=events, batches=batches, force=True)
    vars_args = ["--vars", with_scope(dbt_vars, scope)]
    # What continuous mode leaves out of a build that checks what it wrote.
    selector = ["--selector", "per_batch"] if scope == "changed" else []

    manifest = None
    chunk = max(1, preload_chunk)
    for first in range(1, batches, chunk):
        started = time.perf_counter()
        last = min(first + chunk - 1, batches - 1)
        lines = sum(land_batch(generated, landing, batch)[1] for batch in range(first, last + 1))
        if manifest is None:
            manifest = dbt_invoke(["parse", *vars_args], work)
        dbt_invoke(
            ["run", *vars_args] if preload_chunk else ["build", *NO_UNIT_TESTS, *vars_args],
            work,
            manifest=manifest,
        )
        print(
            f"batches {first}-{last} (not profiled): {lines:,} lines, "
            f"built in {time.perf_counter() - started:.1f} s",
            flush=True,
        )

    files, lines = land_batch(generated, landing, batches)
    print(f"batch {batches} (profiled): {lines:,} lines in {files} files", flush=True)
    recorder = StatementRecorder()
    started = time.perf_counter()
    manifest = dbt_invoke(["parse", *vars_args], work)
    parse_s = time.perf_counter() - started
    started = time.perf_counter()
    # Scope none: the batch as continuous mode builds it, its checks later.
    no_tests = ["--exclude-resource-type", "test"] if scope == "none" else []
    results = dbt_invoke(
        ["build", *selector, *NO_UNIT_TESTS, *no_tests, *vars_args],
        work,
        manifest=manifest,
        callbacks=[recorder],
    )
    build_s = time.perf_counter() - started

    profiles = node_profiles(
        results.results, read_jobs(event_log), recorder.statements, lake / "warehouse"
    )
    figures = report(profiles, parse_s, build_s, top)
    figures.update({"batch": batches, "lines": lines, "events": events, "batches": batches})
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--events", type=int, default=20_000, help="event lines over all batches (default 20000)"
    )
    parser.add_argument(
        "--batches", type=int, default=2, help="batches; the last one is profiled (default 2)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--lake",
        type=Path,
        help="work folder, its lake rebuilt (default: a new temporary folder, removed after)",
    )
    parser.add_argument("--top", type=int, default=12, help="models and tests to list (default 12)")
    parser.add_argument("--json", type=Path, help="write the whole profile here")
    parser.add_argument("--vars", default="{}", help="dbt --vars for every build (YAML)")
    parser.add_argument(
        "--preload-chunk",
        type=int,
        default=0,
        metavar="K",
        help="land the batches before the profiled one K at a time, one `dbt run` each "
        "(default: one `dbt build` per batch)",
    )
    parser.add_argument(
        "--scope",
        choices=("full", "changed", "none"),
        default="full",
        help="the profiled build's data tests: whole tables, or what it wrote, or none, "
        "as continuous mode builds a batch (default full)",
    )
    parser.add_argument("--threads", type=int, default=1, help="dbt threads (default 1)")
    args = parser.parse_args()
    if args.batches < 1:
        parser.error("--batches must be at least 1")

    work = args.lake or Path(tempfile.mkdtemp(prefix="adlake_profile_"))
    try:
        figures = profile_batch(
            work,
            args.events,
            args.batches,
            args.seed,
            args.top,
            args.vars,
            args.preload_chunk,
            args.scope,
            args.threads,
        )
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2, default=str))
            print(f"\nprofile written to {args.json}")
    finally:
        from pyspark import SparkContext

        if SparkContext._active_spark_context is not None:  # the session dbt's adapter started
            SparkContext._active_spark_context.stop()
        if args.lake is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
