"""Benchmark: the same billing pipeline built six ways, per micro-batch, on the same data.

One run generates the data (deterministic for its seed: JSON-lines batch files
of billing events, each line event_id, event_version, event_time, account_id,
cost_micros), then builds it, batch by batch, six ways, each in a process
(a fresh JVM) and a lake of its own, one after the other:

- `lakehouse`: this adapter (`type: lakehouse`, `method: session`; the models
  in adlake/bench/pipeline/models/lakehouse): ODS appends the batch's parsed
  lines; DWD upserts them into a copy-on-write table by event_id, ordered by
  event_version, reading only ODS's new commits (`lake_changes`); DWS adds
  DWD's signed changes (`lake_signed_changes`) to the stored rows of the days
  they touch; ADS (spend per customer) is a small table, rebuilt. DWD is
  copy-on-write because DWS reads its changes: a copy-on-write writer puts
  each change's before and after images beside the files it rewrites, so the
  change read costs what changed, where on merge-on-read Hudi's change read
  merges every file group the batch touched to find the before images (at
  the default scale DWS took 5.0-6.5 s a batch on a merge-on-read DWD,
  3.0-3.7 s on a copy-on-write one; DWD's upsert took 4-5 s either way).
- `lakehouse_iceberg`, `lakehouse_delta`: the same models, configs and
  change reads with `file_format` iceberg or delta (env
  ADLAKE_BENCH_TABLE_FORMAT; Hudi's own settings are left out there):
  DWD copy-on-write read through Iceberg's changelog or Delta's Change Data
  Feed.
- `dbt_spark_hudi`: dbt-spark on Hudi (`type: spark`, `method: session`) as
  dbt-spark's and Hudi's docs write it: `file_format: hudi`, raw `options`
  (type, primaryKey, preCombineField), `incremental_strategy: merge` with a
  `unique_key`, new rows found by the usual high-water mark (`ingested_at >
  (select max(ingested_at) from {{ this }})`), DWS recomputed for the days the
  new rows touch and merged, ADS rebuilt. dbt-spark's session makes its own
  SparkSession; it gets Hudi and the same Spark settings as the adapter's
  embedded session (memory, parallelism, a lake folder of its own) from a
  spark-defaults.conf in SPARK_CONF_DIR.
- `parquet_rebuild`: dbt-spark, `file_format: parquet`, every model a `table`
  rebuilt from every batch landed so far.
- `floor`: plain PySpark, no dbt: read the batch's files, write them once as
  parquet. The raw I/O a batch cannot do without.

Batch 0 is the base table (`--base-events`), loaded and timed apart; then
`--warmup` warm-up batches (default 1; timed apart: a new JVM's first
batches are slower); then `--batches` measured batches of `--batch-events`
lines each, half of them new events, half corrections of recent events (a
higher event_version and a new cost). Each batch is landed (hard-linked) into the approach's own landing
folder before its run. Time per batch: the wall time of the `dbt run` (the
project parsed and Spark started once per process, before the first batch),
or the floor's job; dbt's per-model seconds are kept too. dbt-spark's
merge-on-read DWD compacts inline every 5 delta commits (Hudi's default for a
batch write): the runs that did are reported (with the defaults, the 5th
run: the load, a warm-up batch and 3 measured batches put it in the last
measured one).

After every batch each approach's ADS rows (account_id, spend_micros,
events) must equal the figures the generator computed for that batch, and so
each other's: the benchmark fails loudly otherwise (a benchmark of wrong
results is worthless). It asserts nothing about time: it prints the figures
(and writes them with --json).

    python -m adlake.bench.alternatives [--base-events 2000000] [--batch-events 20000]
                                        [--batches 3] [--json PATH]
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
from array import array
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random

import yaml

from adlake import ROOT
from adlake.bench import children
from adlake.bench.profile_batch import LEADING_COMMENTS, StatementRecorder, statement_kind

PIPELINE = Path(__file__).resolve().with_name("pipeline")
# This adapter's pipeline on each table format (Hudi's is `lakehouse`), then
# the alternatives to it.
APPROACHES = (
    "lakehouse",
    "lakehouse_iceberg",
    "lakehouse_delta",
    "dbt_spark_hudi",
    "parquet_rebuild",
    "floor",
)
SCHEMA = "bench"
START = datetime(2026, 10, 1, tzinfo=UTC)
# A dbt approach's ADS table.
ADS = f"{SCHEMA}.ads_spend_by_customer"


# --- The data -------------------------------------------------------------------


def batch_folder(batch: int) -> str:
    return f"batch={batch:06d}"


def generate(
    out: Path,
    base_events: int,
    batch_events: int,
    batches: int,
    seed: int,
    accounts: int,
    days: int,
) -> list[list[list[int]]]:
    """Writes batch 0 (the base table) and `batches` more under `out`, as JSON-lines files; returns, per batch, the ADS rows a
    correct pipeline holds after it: [account_id, spend_micros, events],
    sorted by account.

    Event i happens at START + i * days / base_events (the feed moves on at
    the base table's rate), at a random account, with a random cost. A batch
    after the base is half new events, half corrections: events among the
    most recent tenth of those so far (about the last 3 of 30 days), each once,
    with its version one higher and a new cost (same time and account)."""
    rng = Random(seed)
    step = days * 86400 / base_events
    account = array("i")
    version = array("i")
    cost = array("q")
    spend = [0] * accounts
    events = [0] * accounts
    expected: list[list[list[int]]] = []

    def new_event() -> int:
        i = len(account)
        account.append(rng.randrange(accounts))
        version.append(1)
        cost.append(rng.randrange(1_000, 5_000_000))
        spend[account[i]] += cost[i]
        events[account[i]] += 1
        return i

    def correct(i: int) -> None:
        version[i] += 1
        new_cost = rng.randrange(1_000, 5_000_000)
        spend[account[i]] += new_cost - cost[i]
        cost[i] = new_cost

    for batch in range(batches + 1):
        if batch == 0:
            written = [new_event() for _ in range(base_events)]
            parts = 4
        else:
            corrections = batch_events // 2
            window = max(corrections, len(account) // 10)
            corrected = rng.sample(range(len(account) - window, len(account)), corrections)
            for i in corrected:
                correct(i)
            written = corrected + [new_event() for _ in range(batch_events - corrections)]
            parts = 2
        folder = out / batch_folder(batch)
        folder.mkdir(parents=True)
        files = [(folder / f"part-{n:04d}.jsonl").open("w") for n in range(parts)]
        for n, i in enumerate(written):
            moment = START + timedelta(seconds=i * step)
            files[n % parts].write(
                f'{{"event_id":"ev{i:010d}","event_version":{version[i]},'
                f'"event_time":"{moment:%Y-%m-%d %H:%M:%S}","account_id":{account[i]},'
                f'"cost_micros":{cost[i]}}}\n'
            )
        for file in files:
            file.close()
        expected.append([[a, spend[a], events[a]] for a in range(accounts) if events[a]])
    return expected


# --- Spark settings ---------------------------------------------------------------


def hudi_jar() -> Path:
    from dbt.adapters.lakehouse import maven
    from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle

    return hudi_bundle.locate(cache_dir=ROOT / maven.DEFAULT_CACHE_DIR)


def spark_settings(lake: Path, driver_memory: str, hudi: bool) -> dict[str, str]:
    """The Spark settings of the adapter's embedded session (master, memory,
    shuffle partitions, metastore and warehouse in the lake, UTC, ...), for a
    session that dbt-spark or plain PySpark builds itself; without Hudi's
    jar, serializer, extension and catalog when `hudi` is false. (The
    adapter's own local file system, which spares a child process per file
    created, is the adapter's and stays out.)"""
    from dbt.adapters.lakehouse.session.embedded import hudi_session_conf
    from dbt.adapters.lakehouse.session.local_dir import JAVA_OPTIONS, scratch_conf

    conf = hudi_session_conf(lake, hudi_jar(), "local[*]")
    # Spark's scratch files, the Hive client's folders and the JVM's
    # temporary files in the lake, not in /tmp (the Hive client never
    # removes its folder).
    conf.update(scratch_conf(lake / "scratch", conf[JAVA_OPTIONS]))
    conf["spark.driver.memory"] = driver_memory
    conf["spark.app.name"] = "adlake-bench-alternatives"
    if not hudi:
        for key in (
            "spark.jars",
            "spark.serializer",
            "spark.kryo.registrator",
            "spark.sql.extensions",
            "spark.sql.catalog.spark_catalog",
        ):
            conf.pop(key)
    return conf


def table_format(approach: str) -> str | None:
    """The table format of one of this adapter's approaches (None for the
    others): `lakehouse` is Hudi, `lakehouse_<format>` that format."""
    if not approach.startswith("lakehouse"):
        return None
    return approach.removeprefix("lakehouse").removeprefix("_") or "hudi"


def write_profile(work: Path, approach: str, driver_memory: str) -> None:
    fmt = table_format(approach)
    if fmt:
        output = {
            "type": "lakehouse",
            "method": "session",
            "schema": SCHEMA,
            "threads": 1,
            "lake_dir": str(work / "lake"),
            "hudi_jar": str(hudi_jar()),
            "spark_conf": {"spark.driver.memory": driver_memory},
            # Hudi's jar is loaded whatever the format; the other format's too.
            "table_formats": sorted({"hudi", fmt}),
        }
    else:
        # dbt-spark's session: the SparkSession it builds reads the settings
        # from SPARK_CONF_DIR (see child_env).
        output = {
            "type": "spark",
            "method": "session",
            "schema": SCHEMA,
            "host": "NA",
            "threads": 1,
        }
    (work / "profiles.yml").write_text(
        yaml.safe_dump({"alternatives": {"target": "bench", "outputs": {"bench": output}}})
    )


def child_env(approach: str, work: Path, driver_memory: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYSPARK_SUBMIT_ARGS"}
    env.pop("SPARK_CONF_DIR", None)
    fmt = table_format(approach)
    # This adapter's approaches share one folder of models, its file_format
    # read from the environment.
    env["ADLAKE_BENCH_APPROACH"] = "lakehouse" if fmt else approach
    env["ADLAKE_BENCH_TABLE_FORMAT"] = fmt or "hudi"
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if not fmt:
        conf_dir = work / "conf"
        conf_dir.mkdir(parents=True, exist_ok=True)
        settings = spark_settings(work / "lake", driver_memory, hudi=approach == "dbt_spark_hudi")
        (conf_dir / "spark-defaults.conf").write_text(
            "".join(f"{key} {value}\n" for key, value in settings.items())
        )
        env["SPARK_CONF_DIR"] = str(conf_dir)
    return env


# --- One approach, in its own process ----------------------------------------------


def land(generated: Path, landing: Path, batch: int) -> Path:
    """The batch's files into the approach's landing folder (hard links)."""
    source, target = generated / batch_folder(batch), landing / batch_folder(batch)
    target.mkdir(parents=True)
    for file in sorted(source.iterdir()):
        try:
            os.link(file, target / file.name)
        except OSError:
            shutil.copyfile(file, target / file.name)
    return target


class DbtPipeline:
    """`dbt run` of one approach's models, once per batch, in this process:
    the project is parsed once, and later runs reuse its manifest."""

    def __init__(self, work: Path) -> None:
        self.args = [
            "--project-dir",
            str(PIPELINE),
            "--profiles-dir",
            str(work),
            "--target-path",
            str(work / "target"),
            "--log-path",
            str(work / "logs"),
        ]
        self.manifest = None
        self.last_split: dict[str, float] = {}

    def start(self) -> None:
        """Parses the project and starts Spark (a `dbt show` of a constant),
        so that no batch's time holds the JVM's start."""
        from dbt.cli.main import dbtRunner

        parsed = dbtRunner().invoke(["--log-level", "warn", "parse", *self.args])
        if not parsed.success:
            raise SystemExit(f"dbt parse failed: {parsed.exception}")
        self.manifest = parsed.result
        shown = dbtRunner(manifest=self.manifest).invoke(
            ["--log-level", "warn", "show", "--inline", "select 1 as started", *self.args]
        )
        if not shown.success:
            raise SystemExit(f"Spark did not start: {shown.exception}")

    def run(self, batch: int, batch_dir: Path, landing: Path) -> tuple[float, dict[str, float]]:
        from dbt.cli.main import dbtRunner

        variables = {"batch": batch, "batch_dir": str(batch_dir), "landing_dir": str(landing)}
        recorder = StatementRecorder()
        started = time.perf_counter()
        result = dbtRunner(manifest=self.manifest, callbacks=[recorder]).invoke(
            ["--log-level", "warn", "run", *self.args, "--vars", json.dumps(variables)]
        )
        seconds = time.perf_counter() - started
        if not result.success:
            raise SystemExit(f"batch {batch}: dbt run failed: {result.exception}")
        models = {r.node.name: round(r.execution_time, 3) for r in result.result.results}
        self.last_split = time_split(recorder.statements, seconds)
        return seconds, models

    def ads(self) -> list[list[int]]:
        from pyspark.sql import SparkSession

        # A session of its own: a table the run rebuilt is read afresh.
        spark = SparkSession.builder.getOrCreate().newSession()
        # REFRESH in SQL, which runs with this session active: the session
        # catalog finds Iceberg's catalog through the active session, and
        # spark.catalog.refreshTable leaves the thread's last one active.
        spark.sql(f"refresh table {ADS}")
        rows = spark.sql(
            f"select account_id, spend_micros, events from {ADS} where events != 0"
        ).collect()
        return sorted([int(r.account_id), int(r.spend_micros), int(r.events)] for r in rows)


def statement_part(sql: str, kind: str | None = None) -> str:
    """Which part of a batch's time a statement dbt sent belongs to: the
    writes to the models' tables, the models' queries (each staged, in memory
    or in a scratch table, or a change read staged before them), or the
    statements around them (timeline look-ups, describes, the scratch tables'
    drops). `kind`: statement_kind of the statement as sent, when `sql` is
    its text without its leading comments."""
    text = LEADING_COMMENTS.sub("", sql, count=1).lower()
    kind = kind or statement_kind(sql)
    if kind == "staged batch" or (kind == "write" and text.startswith("create")):
        return "queries (staged)"
    if kind == "write" and not text.startswith("insert overwrite directory"):
        return "table writes"
    return "other statements"


def time_split(statements: list, wall: float) -> dict[str, float]:
    """A `dbt run`'s wall seconds by part (statement_part), and dbt's own
    time between and around the statements (one thread: they add up)."""
    parts = {"table writes": 0.0, "queries (staged)": 0.0, "other statements": 0.0}
    for statement in statements:
        parts[statement_part(statement.text, statement.kind)] += statement.seconds
    parts["dbt outside statements"] = max(0.0, wall - sum(parts.values()))
    return {name: round(seconds, 3) for name, seconds in parts.items()}


class Floor:
    """Plain PySpark: the batch's files read and written once as parquet."""

    def __init__(self, work: Path) -> None:
        self.out = work / "lake" / "events"
        self.spark = None

    def start(self) -> None:
        from pyspark.sql import SparkSession

        self.spark = SparkSession.builder.getOrCreate()  # settings from SPARK_CONF_DIR

    def run(self, batch: int, batch_dir: Path, landing: Path) -> tuple[float, dict[str, float]]:
        started = time.perf_counter()
        self.spark.read.json(str(batch_dir)).write.mode("append").parquet(str(self.out))
        seconds = time.perf_counter() - started
        return seconds, {"read json, write parquet": round(seconds, 3)}

    def ads(self) -> list[list[int]]:
        """Not timed: spend per customer from what the floor wrote (each
        event's highest version), so its batches are checked like the others."""
        self.spark.read.parquet(str(self.out)).createOrReplaceTempView("floor_events")
        rows = self.spark.sql(
            "select account_id, sum(cost_micros) as spend_micros, count(*) as events from ("
            " select account_id, cost_micros,"
            " row_number() over (partition by event_id order by event_version desc) as version_rank"
            " from floor_events) where version_rank = 1 group by account_id"
        ).collect()
        return sorted([int(r.account_id), int(r.spend_micros), int(r.events)] for r in rows)


def run_approach(approach: str, work: Path, generated: Path, expected: Path) -> dict:
    """Every batch through one approach; stops at the first batch whose ADS
    rows differ from the expected ones."""
    truth = json.loads(expected.read_text())
    landing = work / "landing"
    pipeline = Floor(work) if approach == "floor" else DbtPipeline(work)
    started = time.perf_counter()
    pipeline.start()
    figures: dict = {"start_seconds": time.perf_counter() - started}
    figures.update(seconds=[], models=[], ads=[], dwd_compactions=[], splits=[])
    for batch in range(len(truth)):
        batch_dir = land(generated, landing, batch)
        compactions = dwd_compactions(work)
        seconds, models = pipeline.run(batch, batch_dir, landing)
        compacted = dwd_compactions(work) - compactions
        ads = pipeline.ads()
        print(
            f"  {approach} batch {batch}: {seconds:.1f} s {models}"
            + (" (DWD compacted)" if compacted else ""),
            file=sys.stderr,
            flush=True,
        )
        if ads != truth[batch]:
            raise SystemExit(
                f"{approach}: after batch {batch} ADS differs from the expected figures: "
                + describe_difference(truth[batch], ads)
            )
        figures["seconds"].append(seconds)
        figures["models"].append(models)
        figures["ads"].append(ads)
        figures["dwd_compactions"].append(compacted)
        figures["splits"].append(getattr(pipeline, "last_split", {}))
    return figures


def dwd_compactions(work: Path) -> int:
    """Compactions completed on a merge-on-read DWD's timeline (where a
    compaction completes as a `commit`, its writes as `deltacommit`s); 0 for
    the others (a copy-on-write table's every write is a `commit`)."""
    timeline = work / "lake" / "warehouse" / f"{SCHEMA}.db" / "dwd_events" / ".hoodie" / "timeline"
    if not any(timeline.glob("*_*.deltacommit")):
        return 0
    return len(list(timeline.glob("*_*.commit")))


def describe_difference(expected: list[list[int]], got: list[list[int]]) -> str:
    want = {row[0]: row[1:] for row in expected}
    have = {row[0]: row[1:] for row in got}
    wrong = [
        f"account {a}: expected {want.get(a)}, got {have.get(a)}"
        for a in sorted(set(want) | set(have))
        if want.get(a) != have.get(a)
    ]
    return f"{len(wrong)} of {len(want)} accounts wrong, e.g. " + "; ".join(wrong[:5])


# --- The run --------------------------------------------------------------------


def measure(approach: str, work: Path, generated: Path, expected: Path, driver_memory: str) -> dict:
    """One approach in a child process (a JVM and a lake of its own)."""
    work.mkdir(parents=True)
    if approach != "floor":
        write_profile(work, approach, driver_memory)
    started = time.perf_counter()
    args = ["--approach", approach, "--work", str(work), "--generated", str(generated)]
    args += ["--expected", str(expected)]
    env = child_env(approach, work, driver_memory)
    failure = f"{approach}: failed; see its output above"
    figures = children.run(__spec__.name, args, failure, env=env, cwd=work)
    figures["process_seconds"] = time.perf_counter() - started
    return figures


def summarize(parameters: dict, measured: dict[str, dict]) -> dict:
    first = 1 + parameters["warmup_batches"]
    per_batch = {a: f["seconds"][first:] for a, f in measured.items()}
    median = {a: statistics.median(s) for a, s in per_batch.items()}

    # Each ratio whose two approaches ran: the alternatives against this
    # adapter on Hudi, and this adapter on each other format against Hudi.
    pairs = {
        "dbt_spark_hudi_over_lakehouse": ("dbt_spark_hudi", "lakehouse"),
        "lakehouse_over_floor": ("lakehouse", "floor"),
        "parquet_over_lakehouse": ("parquet_rebuild", "lakehouse"),
        "lakehouse_iceberg_over_lakehouse": ("lakehouse_iceberg", "lakehouse"),
        "lakehouse_delta_over_lakehouse": ("lakehouse_delta", "lakehouse"),
    }
    ratios = {
        name: median[a] / median[b] for name, (a, b) in pairs.items() if a in median and b in median
    }
    splits = measured["lakehouse"]["splits"][first:]

    return {
        "alternatives": {
            "parameters": parameters,
            "per_batch_seconds": per_batch,
            "median_seconds": median,
            "ratios": ratios,
            "load_seconds": {a: f["seconds"][0] for a, f in measured.items()},
            "warmup_seconds": {a: f["seconds"][1:first] for a, f in measured.items()},
            # Parsing the project and starting Spark, before batch 0.
            "start_seconds": {a: f["start_seconds"] for a, f in measured.items()},
            # dbt's seconds per model (the floor's one job), per measured batch.
            "per_model_seconds": {a: f["models"][first:] for a, f in measured.items()},
            "process_seconds": {a: f["process_seconds"] for a, f in measured.items()},
            # The runs that compacted a merge-on-read DWD (dbt-spark's: inline,
            # every 5 delta commits by default): "load", "warm-up N", "batch N".
            "dwd_compacted_in": {
                a: [
                    batch_label(b, first - 1)
                    for b, compacted in enumerate(f["dwd_compactions"])
                    if compacted
                ]
                for a, f in measured.items()
            },
            # Every approach's ADS rows equalled the expected figures, and so
            # each other's, after every batch (the run fails otherwise).
            # This adapter's measured batches by part (time_split), median.
            "lakehouse_split_seconds": {
                part: statistics.median(split[part] for split in splits) for part in splits[0]
            },
            "ads_agreed": True,
            "ads_rows": len(measured["lakehouse"]["ads"][-1]),
        }
    }


def batch_label(batch: int, warmup: int) -> str:
    if batch == 0:
        return "load"
    return f"warm-up {batch}" if batch <= warmup else f"batch {batch - warmup}"


def print_table(summary: dict) -> None:
    s = summary["alternatives"]
    measured = len(next(iter(s["per_batch_seconds"].values())))
    warmup = len(next(iter(s["warmup_seconds"].values())))
    head = (
        f"{'approach':18}{'start':>9}{'load':>9}"
        + "".join(f"{'warm-up':>9}" for _ in range(warmup))
        + "".join(f"{'batch ' + str(n + 1):>9}" for n in range(measured))
    )
    print(f"\n{head}{'median':>9}")
    for approach in s["median_seconds"]:
        cells = [s["start_seconds"][approach], s["load_seconds"][approach]]
        cells += s["warmup_seconds"][approach]
        cells += s["per_batch_seconds"][approach] + [s["median_seconds"][approach]]
        print(f"{approach:18}" + "".join(f"{c:>7.1f} s" for c in cells))
    print("\nmedian seconds per model (measured batches):")
    for approach in s["median_seconds"]:
        runs = s["per_model_seconds"][approach]
        parts = ", ".join(
            f"{model} {statistics.median(run[model] for run in runs):.1f}" for model in runs[0]
        )
        print(f"  {approach:18}{parts}")
    print(
        "  lakehouse, by part: "
        + ", ".join(f"{part} {sec:.1f}" for part, sec in s["lakehouse_split_seconds"].items())
    )
    for approach, runs in s["dwd_compacted_in"].items():
        if runs:
            print(f"  {approach}: DWD compacted in {', '.join(runs)}")
    print()
    for name, value in s["ratios"].items():
        print(f"{name}: {value:.2f}")
    print(
        f"ADS equal across approaches and to the expected figures after every batch: {s['ads_rows']} customers"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--base-events",
        type=int,
        default=2_000_000,
        help="events in the table before the measured batches, loaded as batch 0 (default 2000000)",
    )
    parser.add_argument(
        "--batch-events",
        type=int,
        help="lines per batch, half new, half corrections (default 1%% of --base-events)",
    )
    parser.add_argument("--batches", type=int, default=3, help="measured batches (default 3)")
    parser.add_argument(
        "--warmup", type=int, default=1, help="batches before the measured ones (default 1)"
    )
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--accounts", type=int, default=2000, help="customers (default 2000)")
    parser.add_argument(
        "--days", type=int, default=30, help="days the base table spans (default 30)"
    )
    parser.add_argument(
        "--driver-memory", default="4g", help="every approach's Spark driver memory (default 4g)"
    )
    parser.add_argument(
        "--approaches",
        default=",".join(APPROACHES),
        help="which, in this order; lakehouse (this adapter on Hudi) among them "
        f"(default {','.join(APPROACHES)})",
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    # A child runs one approach (see measure).
    parser.add_argument("--approach", choices=APPROACHES, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--generated", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--expected", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.approach:
        figures = run_approach(args.approach, args.work, args.generated, args.expected)
        children.report(figures)
        return

    approaches = args.approaches.split(",")
    if "lakehouse" not in approaches or not set(approaches) <= set(APPROACHES):
        parser.error(f"--approaches: some of {', '.join(APPROACHES)}, lakehouse among them")
    batch_events = args.batch_events or max(2, args.base_events // 100)
    if args.batches < 1 or args.warmup < 0 or batch_events < 2 or args.base_events < 10:
        parser.error("need at least 1 measured batch, 2 events a batch and 10 base events")
    parameters = {
        "base_events": args.base_events,
        "batch_events": batch_events,
        "batches": args.batches,
        "warmup_batches": args.warmup,
        "corrections_per_batch": batch_events // 2,
        "seed": args.seed,
        "accounts": args.accounts,
        "days": args.days,
        "driver_memory": args.driver_memory,
        "cores": os.cpu_count(),
    }
    started = time.perf_counter()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_alternatives_"))
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
    try:
        generated = work / "generated"
        expected_ads = generate(
            generated,
            args.base_events,
            batch_events,
            args.warmup + args.batches,
            args.seed,
            args.accounts,
            args.days,
        )
        expected = work / "expected_ads.json"
        expected.write_text(json.dumps(expected_ads))
        print(
            f"generated {args.base_events:,} base events and {args.warmup + args.batches} batches of "
            f"{batch_events:,} ({batch_events // 2:,} corrections) in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )
        measured: dict[str, dict] = {}
        for approach in approaches:
            figures = measure(approach, work / approach, generated, expected, args.driver_memory)
            # Each child checked its ADS against the expected figures; check
            # them against each other's too, batch by batch.
            for other, theirs in measured.items():
                for batch, (mine, its) in enumerate(
                    zip(figures["ads"], theirs["ads"], strict=True)
                ):
                    if mine != its:
                        raise SystemExit(
                            f"after batch {batch}, {approach}'s ADS differs from {other}'s: "
                            + describe_difference(its, mine)
                        )
            measured[approach] = figures
            print(
                f"{approach}: start {figures['start_seconds']:.1f} s, batches "
                + ", ".join(f"{s:.1f}" for s in figures["seconds"])
                + f" s (load, {args.warmup} warm-up, {args.batches} measured; "
                f"process {figures['process_seconds']:.0f} s)",
                flush=True,
            )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    parameters["elapsed_seconds"] = round(time.perf_counter() - started, 1)
    summary = summarize(parameters, measured)
    print_table(summary)
    print(f"elapsed: {parameters['elapsed_seconds']:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
