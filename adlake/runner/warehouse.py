"""Build the adlake warehouse on the embedded Spark, micro-batch by micro-batch.

`make run` calls this. It generates the source data (adlake.generator,
deterministic for the seed), then for each batch lands its files
(adlake.landing) and builds it in-process, as continuous mode does: the
batch's seeds and models first (ADS holds its figures), then a `dbt test` of
what they wrote. All batches share one Spark JVM. It prints a line per batch
with its seconds from landing to ADS and to checked, and ends with a summary:
the median of both, rows per table, quarantined lines by reason, the latest
commit of each Hudi table, and the warehouse's totals against the generator's
own (its truth.json).

The lake persists in .lake/ (`make clean` removes it). Run it again and the
batches are already landed: only the last build runs; its incremental models
read nothing new and write no commit, and its data tests check the warehouse.

Data tests check whole tables in every 4th batch and the last one; the other
batches check only what their build wrote (the adapter's
`lakehouse_test_scope: changed`, and the project's selector `per_batch`,
which leaves out the tests tagged full_builds_only: comparisons another test
of the build already makes).

    python -m adlake.runner.warehouse [--batches 4] [--events 20000] [--seed 7] [--full-checks-every 4]
        [--table-format hudi|iceberg|delta]

(or `adlake-run ...`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from adlake import ROOT
from adlake.generator import generate
from adlake.landing import land_batch
from adlake.runner.readers import profile_target, target_reader
from dbt.adapters.lakehouse.formats.registry import FORMATS

LAYERS = ("ref", "ods", "dwd", "dws", "ads")
SCHEMA = "adlake"


PROJECT_ARGS = ["--project-dir", str(ROOT), "--profiles-dir", str(ROOT / "profiles")]


def work_args(work: Path, profiles: Path | None = None) -> list[str]:
    """dbt's arguments for this repository's project run on a work folder of
    its own: its profiles (`profiles`, else work/profiles), target/ and logs/."""
    return [
        "--project-dir",
        str(ROOT),
        "--profiles-dir",
        str(profiles or work / "profiles"),
        "--target-path",
        str(work / "target"),
        "--log-path",
        str(work / "logs"),
    ]


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


class Builds:
    """`dbt build` once per batch, in this process. The project is parsed
    once, by the first build: later builds reuse its manifest (the models do
    not change between batches; only the landed files do). `args`: where the
    project, profiles, target and logs are (default: this repository's)."""

    def __init__(
        self,
        args: list[str] | None = None,
        compact_between_builds: bool = False,
        checks_after_models: bool = False,
        table_format: str = "hudi",
    ) -> None:
        self.args = args or PROJECT_ARGS
        self.manifest = None
        # With checks_after_models, continuous mode builds a batch without
        # its data tests (build(tests=False)) and checks it with a later `dbt
        # test` (continuous.Checks): ADS is published before the checks.
        self.checks_after_models = checks_after_models
        # With compact_between_builds, DWD's writes only plan their
        # compactions and compact_scheduled() runs the plans after the build,
        # so no batch waits for a compaction. (A config's vars are read when
        # the project is parsed: they go to the parse too.)
        self.compact_between_builds = compact_between_builds
        self.vars = {"dwd_compaction_mode": "schedule"} if compact_between_builds else {}
        # The models' table format (macros/warehouse/table_format.sql).
        if table_format != "hudi":
            self.vars["table_format"] = table_format

    def build(
        self,
        test_scope: str,
        command: str = "build",
        callbacks: list | None = None,
        changed_since: dict[str, str] | None = None,
        tests: bool = True,
        select: list[str] | None = None,
    ):
        """One `dbt build` (or another `command`, such as `run`); dbt's own
        output is kept to warnings and errors (the full log is logs/dbt.log).
        Returns dbt's result; exits on a failure. `test_scope`: 'changed'
        checks what the build wrote, 'full' whole tables (the adapter's
        lakehouse_test_scope var). `callbacks`: dbt event callbacks, such as
        a profiler's. `changed_since`: for a `dbt test` after builds without
        data tests, each table's latest instant before them (latest_instants):
        its changed-scope tests check what they wrote. `tests=False`: the
        build without its data tests (seeds, models, snapshots). `select`:
        only these nodes, by name (a share of the data tests)."""
        from dbt.cli.main import dbtRunner

        if self.manifest is None:
            parsed = dbtRunner().invoke(
                ["--log-level", "warn", "parse", *self.args, "--vars", json.dumps(self.vars)]
            )
            if not parsed.success:
                sys.exit(f"dbt parse failed: {parsed.exception}; see dbt.log in the log path")
            self.manifest = parsed.result
        # A build that checks what it wrote leaves out the checks that the
        # build's other tests already make (selectors.yml).
        selector = (
            ["--selector", "per_batch"]
            if test_scope == "changed" and command in ("build", "test")
            else []
        )
        if select:
            selector = ["--select", *select]
        build_vars = {**self.vars, "lakehouse_test_scope": test_scope}
        if changed_since:
            build_vars["lakehouse_changed_since"] = changed_since
        # dbt's unit tests check the models' SQL on fixed rows, not the data:
        # they belong to development and CI (`dbt test --select
        # test_type:unit`), as dbt advises, not to every batch of a run.
        untested = ["--exclude-resource-type", "unit_test"]
        if not tests:
            untested += ["--exclude-resource-type", "test"]
        runs_nodes = command in ("build", "test")
        return self._invoke(
            [
                command,
                *self.args,
                *selector,
                *(untested if runs_nodes else []),
                "--vars",
                json.dumps(build_vars),
            ],
            callbacks,
        )

    def tables(self) -> list[str]:
        """schema.table of each table the project's models write (parsed by
        the first build)."""
        if self.manifest is None:
            return []
        return sorted(
            f"{node.schema}.{node.alias or node.name}"
            for node in self.manifest.nodes.values()
            if node.resource_type == "model"
            and node.config.materialized in ("incremental", "table")
        )

    def data_tests(self) -> list[str]:
        """The name of each data test of the project (parsed by the first
        build), in a stable order: what a whole-table check runs."""
        if self.manifest is None:
            return []
        return sorted(
            node.name for node in self.manifest.nodes.values() if node.resource_type == "test"
        )

    def compact_scheduled(self) -> float:
        """Runs the compaction plans the last build scheduled (none: nothing
        runs); returns its seconds."""
        started = time.perf_counter()
        self._invoke(
            ["run-operation", "lake_compact_scheduled", *self.args, "--vars", json.dumps(self.vars)]
        )
        return time.perf_counter() - started

    def _invoke(self, command: list[str], callbacks: list | None = None):
        from dbt.cli.main import dbtRunner

        result = dbtRunner(manifest=self.manifest, callbacks=callbacks or []).invoke(
            ["--log-level", "warn", *command]
        )
        if not result.success:
            sys.exit(f"dbt {command[0]} failed; see dbt.log in the log path")
        return result


def tally(*results) -> str:
    """dbt's node statuses in one line: '17 success, 210 pass' (of one
    invocation, or of a build without data tests and the `dbt test` after it)."""
    statuses = Counter(str(r.status) for result in results for r in result.result.results)
    return ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))


def billing_lines(spark, schema: str) -> dict:
    """Billing lines landed, valid, quarantined, held, and released from the
    hold so far: landed must equal valid + quarantined + held."""
    ods = f"{schema}_ods.ods_billing_events"
    return (
        spark.sql(
            f"select (select count(*) from {ods}_raw) as landed, (select count(*) from {ods}) as valid, "
            f"(select count(*) from {ods}_quarantine) as quarantined, "
            f"(select count(*) from {ods}_held where hold_status = 'held') as held, "
            f"(select count(*) from {ods}_held where hold_status = 'released') as released"
        )
        .collect()[0]
        .asDict()
    )


def latest_instants(spark, tables: list[str]) -> dict[str, str]:
    """Each Hudi table's newest completed instant; tables not created yet, or
    not Hudi, are left out (their data tests check them whole)."""
    instants = {}
    for table in tables:
        try:
            rows = spark.sql(f"call show_commits(table => '{table}', limit => 1)").collect()
        except Exception:  # not created yet, or not a Hudi table
            continue
        if rows:
            instants[table] = str(rows[0].asDict()["commit_time"])
    return instants


def latest_commit(spark, table: str) -> str:
    rows = spark.sql(f"call show_commits(table => '{table}', limit => 1)").collect()
    if not rows:
        return "-"
    row = rows[0].asDict()
    return f"{row['commit_time']} {row['action']}"


def summary(spark, batches: int, truth: dict, elapsed: float, target: str = "local") -> None:
    """The warehouse after the run, read through `spark` (a session on the
    target, or its Thrift reader: SQL and collect() only)."""

    def one(sql: str):
        return spark.sql(sql).collect()[0][0]

    print(f"\n{'table':<44} {'rows':>9}  latest commit")
    for layer in LAYERS:
        schema = f"{SCHEMA}_{layer}"
        tables = sorted(r.tableName for r in spark.sql(f"show tables in {schema}").collect())
        # Hudi registers read-optimized (_ro) and real-time (_rt) views of each
        # merge-on-read table; they are the same data, so list the table once.
        for table in [t for t in tables if not t.endswith(("_ro", "_rt"))]:
            name = f"{schema}.{table}"
            rows = one(f"select count(*) from {name}")
            described = spark.sql(f"describe table extended {name}").collect()
            kinds = {
                r.col_name: r.data_type for r in described if r.col_name in ("Provider", "Type")
            }
            if kinds.get("Type") == "VIEW":
                commit = "(view)"
            elif kinds.get("Provider") == "hudi":
                commit = latest_commit(spark, name)
            else:
                commit = f"({kinds.get('Provider')} table)"
            print(f"{name:<44} {rows:>9,}  {commit}")

    quarantined = spark.sql(
        f"select quarantine_reason, count(*) as n from {SCHEMA}_ods.ods_billing_events_quarantine group by 1 order by 1"
    ).collect()
    print(
        "\nquarantined lines: "
        + (", ".join(f"{r.quarantine_reason} {r.n:,}" for r in quarantined) or "none")
    )
    lines = billing_lines(spark, SCHEMA)
    print(
        "billing lines: landed {landed:,} = valid {valid:,} + quarantined {quarantined:,} + held {held:,} "
        "(their account not landed yet; {released:,} released so far)".format(**lines)
    )

    expected = truth["batches"][batches - 1]
    total = int(one(f"select sum(spend_micros) from {SCHEMA}_ads.ads_spend_by_industry") or 0)
    events = int(one(f"select count(*) from {SCHEMA}_dwd.dwd_billing_events"))
    mark = lambda ok: "ok" if ok else "MISMATCH"  # noqa: E731
    print(
        f"spend in ADS: {total:,} micros; the generator's truth: {expected['cost_micros']:,} "
        f"({mark(total == expected['cost_micros'])})"
    )
    print(
        f"billable events in DWD: {events:,}; truth: {expected['events']:,} ({mark(events == expected['events'])})"
    )
    print(f"\n{batches} batches on target {target}, elapsed {elapsed:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--batches", type=int, default=4, help="micro-batches to land and build (default 4)"
    )
    parser.add_argument(
        "--events", type=int, default=20_000, help="event lines over all batches (default 20000)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--full-checks-every",
        type=at_least_one,
        default=4,
        metavar="N",
        help="data tests read whole tables every N batches and in the last one; the other "
        "batches check what they wrote (default 4; 1: always whole tables)",
    )
    parser.add_argument(
        "--table-format",
        choices=FORMATS,
        default="hudi",
        help="the models' table format (default hudi; the seeds stay parquet)",
    )
    args = parser.parse_args()

    os.chdir(ROOT)  # the lake (.lake/) lives in the project folder
    lake = ROOT / os.environ.get("ADLAKE_LAKE_DIR", ".lake")
    generated, landing = lake / "generated", lake / "landing"
    os.environ["ADLAKE_LANDING_DIR"] = str(landing)
    started = time.time()

    truth = generate(
        generated, seed=args.seed, events=args.events, batches=args.batches, force=True
    )
    print(
        f"generated {args.events:,} event lines in {args.batches} batches (seed {args.seed}) "
        f"in {time.time() - started:.1f} s",
        flush=True,
    )
    target, _, _ = profile_target()
    reader = target_reader()
    builds = Builds(table_format=args.table_format)
    latencies: list[tuple[float, float]] = []  # (to ADS, to checked) per batch built
    for batch in range(1, args.batches + 1):
        landed_at = time.time()
        files, lines = land_batch(generated, landing, batch)
        if files == 0 and batch < args.batches:
            # Landed by an earlier run. Any build ingests every file not yet
            # ingested, so the next build (the last one at the latest) covers it.
            print(f"batch {batch}/{args.batches}: already landed; nothing to build", flush=True)
            continue
        full = batch == args.batches or batch % args.full_checks_every == 0
        # What the checks of what this batch wrote read after: each table's
        # latest instant now (none before the process's first dbt command:
        # its session is the one to read with; whole tables then).
        since = {} if builds.manifest is None else latest_instants(reader(), builds.tables())
        scope = "changed" if since and not full else "full"
        models = builds.build(scope, tests=False)
        to_ads = time.time() - landed_at
        checks = builds.build(scope, command="test", changed_since=since or None)
        to_checked = time.time() - landed_at
        latencies.append((to_ads, to_checked))
        print(
            f"batch {batch}/{args.batches}: landed {files} files ({lines:,} lines); "
            f"in ADS {to_ads:.1f} s after landing; checked "
            f"({'what it wrote' if scope == 'changed' else 'whole tables'}) at {to_checked:.1f} s "
            f"[{tally(models, checks)}]",
            flush=True,
        )

    summary(reader(), args.batches, truth, time.time() - started, target)
    if latencies:
        print(
            f"landing to ADS: median {statistics.median(a for a, _ in latencies):.1f} s; "
            f"landing to checked: median {statistics.median(c for _, c in latencies):.1f} s "
            f"({len(latencies)} batches built)"
        )


if __name__ == "__main__":
    main()
