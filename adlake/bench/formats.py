"""Benchmark: the pipeline micro-batch on Hudi, Iceberg and Delta side by side.

One generated fact table (billing events over 30 days, upserted by event_id
with the version as precombine key, partitioned by day: scaling.py's), written
through this adapter with the same model and configs on each format, only
`file_format` and `table_type` changing; each format and table type in a
lake of its own, each phase in a JVM of its own:

- **the micro-batch**: the full refresh that builds the table, a warm-up
  batch, then the measured batch of 1% of the table (half new events, half
  corrections), merge-on-read against copy-on-write on each format;
- **change read against snapshot scan**: rows and bytes Spark's scans read
  for the measured batch's changes, as `lake_changes` reads them on that
  format (Hudi's incremental query, Iceberg's changelog, Delta's Change Data
  Feed), against a snapshot read of the table (Iceberg's scans and Delta's
  change feed report no bytes to Spark: the sizes of the files they read,
  from Iceberg's metadata tables and Delta's log). Where a format cannot read the range (Iceberg's changelog refuses
  a merge-on-read MERGE's delete files) the figure says so.

No compaction runs in the measured batches (three writes: under every
format's default trigger). It prints the figures and, with --json, writes
them; it asserts no time.

    python -m adlake.bench.formats [--rows 1000000] [--formats hudi,iceberg,delta]
                                   [--types mor,cow] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from adlake.bench import children, scaling
from adlake.bench.incremental import dbt, scan_metrics, write_bench_project

FORMATS = ("hudi", "iceberg", "delta")
# scaling.py's events model, its configs those every format takes.
EVENTS = scaling.EVENTS.split("{%- set rows,", 1)[1]
EVENTS = (
    "{{ config(materialized='incremental', file_format=var('file_format', 'hudi'),\n"
    "          table_type=var('table_type', 'mor'), unique_key='event_id',\n"
    "          precombine_key='version', partition_by='event_date') }}\n"
    "{%- set rows," + EVENTS
)


def table_name(file_format: str) -> str:
    return "iceberg.bench.events" if file_format == "iceberg" else "bench.events"


def write_project(project: Path, lake: Path, file_format: str) -> None:
    formats = sorted({"hudi", file_format})
    write_bench_project(project, lake, {"events": EVENTS}, table_formats=formats)


def _spark():
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate().newSession()


def position(file_format: str) -> str:
    """The table's latest position: a Hudi completion time, an Iceberg
    snapshot id, a Delta version."""
    spark = _spark()
    if file_format == "hudi":
        rows = spark.sql("call show_commits(table => 'bench.events', limit => 100)").collect()
        return max(r.state_transition_time for r in rows)
    if file_format == "iceberg":
        rows = spark.sql(
            "select snapshot_id from iceberg.bench.events.snapshots order by committed_at desc"
        ).collect()
        return str(rows[0][0])
    return str(max(r.version for r in spark.sql("describe history bench.events").collect()))


def change_read_sql(spark, file_format: str, begin: str, end: str) -> str:
    """What lake_changes (latest_state) reads of the range after `begin`
    through `end`, in `spark` (Iceberg's changelog is a view of the session)."""
    if file_format == "hudi":
        return (
            f"select * from hudi_table_changes('bench.events', 'latest_state', '{begin}', '{end}')"
        )
    if file_format == "iceberg":
        spark.sql(
            "call iceberg.system.create_changelog_view(table => 'bench.events', "
            f"changelog_view => 'bench_changes', options => map('start-snapshot-id', '{begin}', "
            f"'end-snapshot-id', '{end}'), net_changes => true)"
        )
        return "select * from bench_changes"
    return f"select * from table_changes('bench.events', {int(begin) + 1}, {end})"


def iceberg_bytes(spark, begin: str | None = None, end: str | None = None) -> int:
    """Bytes of the data files an Iceberg scan reads, from the table's
    metadata (its scans report no file sizes to Spark's metrics): the current
    files, or those the snapshots after `begin` through `end` added or
    removed (what its changelog scan reads)."""
    if begin is None:
        sql = "select sum(file_size_in_bytes) from iceberg.bench.events.files"
    else:
        ids = [
            str(r[0])
            for r in spark.sql(
                "select snapshot_id from iceberg.bench.events.snapshots order by committed_at"
            ).collect()
        ]
        after = ids[ids.index(begin) + 1 : ids.index(end) + 1]
        sql = (
            "select sum(data_file.file_size_in_bytes) from iceberg.bench.events.entries "
            f"where status in (1, 2) and snapshot_id in ({', '.join(after)})"
        )
    return int(spark.sql(sql).collect()[0][0] or 0)


def delta_change_bytes(spark, begin: str, end: str) -> int:
    """Bytes of the files Delta's change feed reads for the versions after
    `begin` through `end` (its scan reports none to Spark's metrics), from the
    table's log: a version's change files when it wrote any, else the data
    files it added and removed."""
    location = spark.sql("describe detail bench.events").collect()[0]["location"]
    log = Path(location.removeprefix("file:")) / "_delta_log"
    total = 0
    for version in range(int(begin) + 1, int(end) + 1):
        actions = [json.loads(line) for line in (log / f"{version:020d}.json").open()]
        cdc = [a["cdc"]["size"] for a in actions if "cdc" in a]
        data = [
            a[kind].get("size", 0)
            for a in actions
            for kind in ("add", "remove")
            if kind in a and a[kind].get("dataChange", True)
        ]
        total += sum(cdc) if cdc else sum(data)
    return total


def batch_vars(p: dict, batch: int, batch_rows: int) -> str:
    return json.dumps(
        {
            "file_format": p["file_format"],
            "table_type": p["table_type"],
            "rows": p["rows"],
            "batch": batch,
            "batch_rows": batch_rows,
            "new_share": 0.5,
        }
    )


def load(project: Path, p: dict) -> dict:
    seconds = dbt(project, "run", "--full-refresh", "--vars", batch_vars(p, 0, 0))
    return {"full_refresh_s": seconds}


def micro_batch(project: Path, p: dict) -> dict:
    """A warm-up batch, the measured 1% batch, and the scans of its changes
    against the snapshot's."""
    fmt, percent = p["file_format"], max(1, p["rows"] // 100)
    warmup = dbt(project, "run", "--vars", batch_vars(p, 1, percent))
    begin = position(fmt)
    measured = dbt(project, "run", "--vars", batch_vars(p, 2, percent))
    end = position(fmt)
    spark = _spark()
    figures: dict = {"warmup_batch_s": warmup, "batch_rows": percent, "batch_s": measured}
    try:
        rows, read = scan_metrics(spark, change_read_sql(spark, fmt, begin, end))
        if fmt == "iceberg":
            read = iceberg_bytes(spark, begin, end)
        elif fmt == "delta":
            read = delta_change_bytes(spark, begin, end)
        figures["change_read"] = {"rows": rows, "bytes": read}
    except Exception as exc:  # Spark's own exception: what the format cannot read
        figures["change_read"] = {"error": str(exc).strip().splitlines()[0][:200]}
    rows, read = scan_metrics(spark, f"select * from {table_name(fmt)}")
    if fmt == "iceberg":
        read = iceberg_bytes(spark)
    figures["snapshot_read"] = {"rows": rows, "bytes": read}
    count = spark.sql(f"select count(*) from {table_name(fmt)}").collect()[0][0]
    expected = p["rows"] + 2 * (percent // 2)
    if count != expected:
        raise SystemExit(f"{fmt} {p['table_type']}: {count} events, not {expected}")
    return figures


PHASES = {"load": load, "micro_batch": micro_batch}


def child_main(phase: str, work: Path, params: dict) -> None:
    project = work / "project"
    if not project.exists():
        write_project(project, work / "lake", params["file_format"])
    children.report(PHASES[phase](project, params))


def measure(file_format: str, table_type: str, rows: int) -> dict:
    """The two phases, each in its own JVM, in a fresh lake."""
    work = Path(tempfile.mkdtemp(prefix=f"bench_formats_{file_format}_"))
    params = {"file_format": file_format, "table_type": table_type, "rows": rows}
    figures: dict = {}
    try:
        for phase in PHASES:
            args = children.phase_arguments(phase, work, params)
            failure = f"{phase} {params}: failed; see {work}"
            figures.update(children.run(__spec__.name, args, failure))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return figures


def describe(fmt: str, table_type: str, f: dict) -> str:
    change = f["change_read"]
    read = (
        f"cannot read it ({change['error']})"
        if "error" in change
        else f"{change['rows']:,} rows / {change['bytes']:,} B"
    )
    return (
        f"{fmt} {table_type}: full refresh {f['full_refresh_s']:.1f} s; 1% batch "
        f"({f['batch_rows']:,} rows) {f['batch_s']:.1f} s; change read {read}, snapshot "
        f"{f['snapshot_read']['rows']:,} rows / {f['snapshot_read']['bytes']:,} B"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--types", default="mor,cow")
    parser.add_argument("--json", type=Path, help="write every figure here")
    children.add_phase_arguments(parser, PHASES)
    args = parser.parse_args(argv)
    if args.phase:
        child_main(args.phase, args.work, json.loads(args.params))
        return
    measured: dict = {}
    for fmt in args.formats.split(","):
        for table_type in args.types.split(","):
            figures = measure(fmt, table_type, args.rows)
            measured.setdefault(fmt, {})[table_type] = figures
            print(describe(fmt, table_type, figures), flush=True)
    results = {"rows": args.rows, "formats": measured}
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
