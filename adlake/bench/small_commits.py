"""Benchmark: what one small Hudi commit costs, with Hudi's defaults and with
the adapter's (formats/hudi/settings/write_defaults.py), one setting at a time.

For each table type and each variant it creates a keyed table, then upserts
the same `--rows` keys `--writes` times in one warm Spark session, and prints
each write's seconds and their median (the first write, which warms the
JVM's code paths, is left out of the median). It asserts nothing.

    python -m adlake.bench.small_commits [--rows 1000] [--writes 6] [variant ...]

(or `adlake-bench-small-commits ...`).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from adlake import ROOT
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.formats.hudi.settings.write_defaults import WRITE_DEFAULTS
from dbt.adapters.lakehouse.session.embedded import hudi_session_conf
from dbt.adapters.lakehouse.session.local_dir import JAVA_OPTIONS, scratch_conf

SYNC = ("hoodie.datasource.meta.sync.enable", "hoodie.datasource.hive_sync.enable")
MARKERS = ("hoodie.embed.timeline.server", "hoodie.write.markers.type")
VARIANTS = {
    "hudi_defaults": {},
    "no_metadata_table": {"hoodie.metadata.enable": "false"},
    "no_meta_sync": {k: WRITE_DEFAULTS[k] for k in SYNC},
    "direct_markers": {k: WRITE_DEFAULTS[k] for k in MARKERS},
    "adapter_defaults": dict(WRITE_DEFAULTS),
}


def session(lake: Path):
    from pyspark.sql import SparkSession

    jar = hudi_bundle.locate(cache_dir=ROOT / ".cache" / "jars")
    builder = SparkSession.builder
    # Spark's scratch files, the Hive client's folders and the JVM's temporary
    # files in the lake, not in /tmp.
    conf = hudi_session_conf(lake, jar, "local[*]")
    conf.update(scratch_conf(lake / "scratch", conf[JAVA_OPTIONS]))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def measure(spark, table: str, table_type: str, settings: dict, rows: int, writes: int) -> list:
    options = "".join(f", '{k}' = '{v}'" for k, v in settings.items())
    spark.sql(
        f"create table {table} (id bigint, v bigint, ts bigint) using hudi "
        f"options (type = '{table_type}', primaryKey = 'id', orderingFields = 'ts'{options})"
    )
    spark.sql("set hoodie.spark.sql.insert.into.operation = upsert")
    seconds = []
    for write in range(writes):
        start = time.perf_counter()
        spark.sql(
            f"insert into {table} select id, id * {write}, {write} from range(0, {rows}) as r(id)"
        )
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--writes", type=int, default=6)
    parser.add_argument("variants", nargs="*", help=f"any of {', '.join(VARIANTS)} (default: all)")
    args = parser.parse_args()
    unknown = set(args.variants) - set(VARIANTS)
    if unknown:
        parser.error(
            f"unknown variant(s) {', '.join(sorted(unknown))}; choose from {', '.join(VARIANTS)}"
        )
    args.variants = args.variants or list(VARIANTS)
    with tempfile.TemporaryDirectory(prefix="bench_small_commits_") as lake:
        spark = session(Path(lake))
        print(f"{args.rows}-row upserts, {args.writes} per table; seconds per write")
        for table_type in ("cow", "mor"):
            for name in args.variants:
                times = measure(
                    spark.newSession(),
                    f"default.{name}_{table_type}",
                    table_type,
                    VARIANTS[name],
                    args.rows,
                    args.writes,
                )
                print(
                    f"{table_type}  {name:<18} median {statistics.median(times[1:]):5.2f}   "
                    + " ".join(f"{t:5.2f}" for t in times),
                    flush=True,
                )
        spark.stop()


if __name__ == "__main__":
    main()
