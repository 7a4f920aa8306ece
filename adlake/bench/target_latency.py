"""Latency from landing to ADS on each execution target, side by side, in one run.

    python -m adlake.bench.target_latency [--targets local,connect,thrift,connect-cluster,thrift-cluster | local-s3]
                                   [--batch-events 100000] [--warmup 2] [--batches 3]
                                   [--preload 1000000] [--preload-chunk 1000000]
                                   [--hudi hoodie.KEY=VALUE ...] [--spark-conf KEY=VALUE ...]
                                   [--json FILE]

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

`--targets local-s3` is the embedded session with the warehouse and the
landing folder in a bucket of the project's S3 server
(adlake.servers.object_store, started for it on 127.0.0.1, logging every
request): each batch lands as one PUT a file, and the requests of its build
and of its compaction are counted by kind from the server's log (LIST, HEAD,
GET, PUT, POST, DELETE). It is a command of its own, not beside `local`: a
process has one embedded session.

With --preload N the warehouse holds N events before the measured batches:
its first batches are landed and built a chunk at a time (--preload-chunk
events, one `dbt run` each, as adlake.bench.freshness preloads), then the
last --warmup of them one by one. Run on local-s3 at two sizes with the same
number of preload runs (the same commits on every timeline), it shows how a
build's requests grow with the table (docs/object-storage.md).

--hudi sets a Hudi setting for every model of the run, as a target's
`server_side_parameters` does (it beats the adapter's write defaults, not a
model's own `hudi_options`), --spark-conf a setting of the profile's
`spark_conf`: how markers and the metadata table were compared on S3
(docs/object-storage.md).

It prints each batch (latency from landing to the end of the last ADS model,
seconds per layer, requests on S3) and a table: median and worst latency per
target. It asserts no time; it exits non-zero on a failed build or a total
that differs from the truth.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from adlake import s3_client
from adlake.bench.freshness import build_preload
from adlake.bench.soak import past_start
from adlake.generator import generate
from adlake.landing import land_batch
from adlake.runner import compare_targets as runner
from adlake.runner.continuous import batch_figures, landed_files
from adlake.runner.warehouse import Builds, work_args
from adlake.servers import object_store
from adlake.servers.catalog import free_port

BATCH_MINUTES = 480  # the generator's default window for a batch
S3_TARGET = "local-s3"
TARGETS = (*runner.TARGETS, S3_TARGET)
EMBEDDED_TARGETS = ("local", S3_TARGET)
BUCKET = "bench"


class Bucket:
    """The S3 server of the local-s3 target, its keys in this process's
    environment (the profile reads them with env_var; landing, too)."""

    def __init__(self, stack: ExitStack, folder: Path) -> None:
        for name in (s3_client.ACCESS_KEY_ENV, s3_client.SECRET_KEY_ENV):
            os.environ.setdefault(name, secrets.token_hex(12))
        self.port = free_port()
        self.folder = folder
        shutil.rmtree(folder, ignore_errors=True)
        object_store.start(self.port, folder, BUCKET, log_requests=True)
        stack.callback(object_store.stop, folder)
        os.environ[s3_client.ENDPOINT_ENV] = f"http://127.0.0.1:{self.port}"
        self.log = folder / "logs" / "s3proxy.log"
        self.offset = 0

    def profile(self) -> dict:
        def env(name: str) -> str:
            return "{{ env_var('" + name + "') }}"

        return {
            "warehouse_dir": f"s3a://{BUCKET}/warehouse",
            "spark_conf": {
                "spark.hadoop.fs.s3a.access.key": env(s3_client.ACCESS_KEY_ENV),
                "spark.hadoop.fs.s3a.secret.key": env(s3_client.SECRET_KEY_ENV),
                "spark.hadoop.fs.s3a.endpoint": f"http://127.0.0.1:{self.port}",
                "spark.hadoop.fs.s3a.path.style.access": "true",
                "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
            },
        }

    def requests(self) -> tuple[dict[str, int], dict[str, int]]:
        """The requests since the last call: by kind, and by table."""
        found, self.offset = object_store.logged_requests(self.log, self.offset)
        kinds = Counter(kind for kind, _ in found)
        tables = Counter(table_of(key) for _, key in found)
        return dict(sorted(kinds.items())), dict(tables.most_common())


def table_of(key: str) -> str:
    """What a request's key (or a listing's prefix) belongs to: `<schema>.<table>`
    for a key under warehouse/<schema>.db/<table>/, `<schema>` for one of the
    schema's folder, else its first folder."""
    parts = [*key.split("/"), "", ""]
    if parts[0] == "warehouse" and parts[1].endswith(".db"):
        schema = parts[1][: -len(".db")]
        return f"{schema}.{parts[2]}" if parts[2] else schema
    return parts[0] or "(bucket)"


def measure_target(
    target: str,
    work: Path,
    generated: Path,
    truth: list[dict],
    warmup: int,
    batches: int,
    preload: tuple[int, int] = (0, 1),
    hudi: dict[str, str] | None = None,
    spark_conf: dict[str, str] | None = None,
) -> dict:
    """`preload`: how many batches are built before the warm-up, and how
    many of them a `dbt run` builds at a time; `hudi`: the target's hoodie.*
    settings; `spark_conf`: more of the profile's spark_conf."""
    method = "session" if target == S3_TARGET else runner.method_of(target)
    folder = work / target
    shutil.rmtree(folder, ignore_errors=True)
    with ExitStack() as stack:
        servers = runner.Servers(stack, work / f"{target}-servers", None)
        port = None if method == "session" else servers.port(target)
        schema = "adlake"
        output = runner.profile("local" if target == S3_TARGET else target, folder, schema, port)
        bucket = Bucket(stack, work / "s3") if target == S3_TARGET else None
        landing = str(folder / "landing")
        if bucket is not None:
            output |= bucket.profile()
            landing = f"s3a://{BUCKET}/landing"
        if hudi:
            output["server_side_parameters"] = dict(hudi)
        if spark_conf:
            output["spark_conf"] = {**output.get("spark_conf", {}), **spark_conf}
        runner.write_profile(folder / "profiles", output)
        os.environ["ADLAKE_LANDING_DIR"] = landing
        builds = Builds(work_args(folder), compact_between_builds=True)
        query = runner.query_function(method, port)
        preloaded, per_run = preload
        build_preload(builds, generated, landing, preloaded, per_run, f"{target}: preload")
        if preloaded:
            check_totals(target, query, schema, truth, preloaded)
        measured = []
        for batch in range(preloaded + 1, preloaded + warmup + batches + 1):
            known = landed_files(landing)
            land_batch(generated, landing, batch)
            new = {k: v for k, v in landed_files(landing).items() if k not in known}
            if bucket is not None:
                bucket.requests()  # the landing's PUTs and listings are not the build's
            result = builds.build("changed")
            figures = batch_figures([result], new, None, {})
            if bucket is not None:
                figures["requests"], figures["requests_by_table"] = bucket.requests()
            check_totals(target, query, schema, truth, batch)
            figures["events_in_warehouse"] = truth[batch - 1]["events"]
            compaction = builds.compact_scheduled()
            label = "warm-up" if batch <= preloaded + warmup else "measured"
            layers = ", ".join(f"{k} {v:.1f}" for k, v in sorted(figures["seconds"].items()))
            on_s3 = ""
            if bucket is not None:
                figures["compaction_requests"] = bucket.requests()[0]
                most = ", ".join(
                    f"{t} {n}" for t, n in list(figures["requests_by_table"].items())[:5]
                )
                on_s3 = (
                    f"; S3 requests: build {figures['requests']}, "
                    f"compaction {figures['compaction_requests']}; most by table: {most}"
                )
            print(
                f"{target}: batch {batch} ({label}): landing to ADS {figures['landing_to_ads']:.1f} s "
                f"({layers}); totals equal the truth; then compaction {compaction:.1f} s{on_s3}",
                flush=True,
            )
            if batch > preloaded + warmup:
                measured.append(figures)
    latencies = [f["landing_to_ads"] for f in measured]
    requests = {
        kind: statistics.median(f["requests"].get(kind, 0) for f in measured)
        for kind in sorted({k for f in measured for k in f.get("requests", {})})
    }
    by_table = {
        table: statistics.median(f["requests_by_table"].get(table, 0) for f in measured)
        for table in {t for f in measured for t in f.get("requests_by_table", {})}
    }
    return {
        "median_requests_by_table": dict(sorted(by_table.items(), key=lambda item: -item[1])),
        "events_before_measured": truth[preloaded + warmup - 1]["events"]
        if preloaded + warmup
        else 0,
        "median_requests_per_build": requests,
        "median_s": statistics.median(latencies),
        "worst_s": max(latencies),
        "latencies_s": latencies,
        "median_by_layer_s": {
            layer: statistics.median(f["seconds"].get(layer, 0.0) for f in measured)
            for layer in sorted({k for f in measured for k in f["seconds"]})
        },
    }


def check_totals(target: str, query, schema: str, truth: list[dict], batch: int) -> None:
    found = runner.totals(query, schema)
    if found != {k: truth[batch - 1][k] for k in found}:
        raise runner.TargetFailed(f"{target}: batch {batch} totals {found} differ from the truth")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="local,connect,thrift,connect-cluster,thrift-cluster")
    parser.add_argument("--batch-events", type=int, default=100_000)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument(
        "--preload",
        type=int,
        default=0,
        help="events in the warehouse before the measured batches, the --warmup batches "
        "among them (default: the warm-up's alone)",
    )
    parser.add_argument(
        "--preload-chunk", type=int, default=1_000_000, help="events landed per preload run"
    )
    parser.add_argument(
        "--hudi",
        action="append",
        default=[],
        metavar="hoodie.KEY=VALUE",
        help="a Hudi setting of the target, for every model (repeatable)",
    )
    parser.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting of the target's spark_conf (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--work", type=Path, help="default: a new temporary folder")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    hudi = dict(setting.split("=", 1) for setting in args.hudi if "=" in setting)
    if len(hudi) != len(args.hudi) or any(not k.startswith("hoodie.") for k in hudi):
        parser.error("--hudi takes hoodie.KEY=VALUE")
    spark_conf = dict(setting.split("=", 1) for setting in args.spark_conf if "=" in setting)
    if len(spark_conf) != len(args.spark_conf):
        parser.error("--spark-conf takes KEY=VALUE")
    chosen = [t.strip() for t in args.targets.split(",") if t.strip()]
    if not chosen or set(chosen) - set(TARGETS):
        parser.error(f"choose targets from {', '.join(TARGETS)}")
    # The embedded session starts once a process, for the first profile's
    # lake: the adapter refuses a second embedded target's lake
    # (embedded_session), but only once the first target's batches are
    # built. Refused here before anything starts.
    embedded = [t for t in chosen if t in EMBEDDED_TARGETS]
    if len(embedded) > 1:
        parser.error(
            f"{' and '.join(embedded)} both run on this process's embedded Spark session, "
            "which starts once, with the first one's warehouse: measure them in one command "
            "each (--targets local, then --targets local-s3)"
        )
    work = (args.work or Path(tempfile.mkdtemp(prefix="adlake-bench-targets-"))).resolve()
    # The preload's batches before its last --warmup, built a chunk at a time.
    preloaded = max(0, args.preload // args.batch_events - args.warmup)
    per_run = max(1, args.preload_chunk // args.batch_events)
    total = preloaded + args.warmup + args.batches
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
                target,
                work,
                work / "generated",
                truth,
                args.warmup,
                args.batches,
                (preloaded, per_run),
                hudi,
                spark_conf,
            )
    except runner.TargetFailed as exc:
        print(f"bench: {exc}")
        return 1
    print(f"\n{'target':<16} {'median s':>8} {'worst s':>7}  median per layer (s)")
    for target, figures in results.items():
        layers = ", ".join(f"{k} {v:.1f}" for k, v in figures["median_by_layer_s"].items())
        print(f"{target:<16} {figures['median_s']:>8.1f} {figures['worst_s']:>7.1f}  {layers}")
        if figures["median_requests_per_build"]:
            print(
                f"{'':<16} S3 requests a build (median), {figures['events_before_measured']:,} "
                f"events in DWD before the first: {figures['median_requests_per_build']}"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
