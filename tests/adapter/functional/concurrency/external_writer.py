"""A second writer of a dbt model's Hudi table: another Spark application (an
ingestion or backfill job) writing the same table, by its path, while dbt runs.

    python external_writer.py TABLE_PATH DATABASE PARTITION STOP_FILE HUDI_JAR SETTINGS_JSON

It upserts ids 1..50 into `source = PARTITION` (run = 1000 + attempt) again and
again until STOP_FILE exists, and prints one JSON line per attempt: whether its
commit went through, or the error it failed with; then one line with the
table's rows per source, as it reads them at the end. Its own Spark session has an
in-memory catalog: it needs no metastore, only the table's files. Settings of
the session itself (an object store's, say) come as JSON in the environment
variable EXTERNAL_WRITER_SPARK_CONF.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession


def summary(exc: Exception) -> str:
    """The Java exception's first line and its causes, without the stack."""
    lines = str(exc).splitlines()
    return "\n".join(lines[:2] + [line for line in lines if line.startswith("Caused by")])


def main() -> None:
    table_path, database, partition, stop_file, jar, settings = sys.argv[1:7]
    conf = json.loads(os.environ.get("EXTERNAL_WRITER_SPARK_CONF", "{}"))
    jars = ",".join(filter(None, [jar, conf.pop("spark.jars", "")]))
    # Its catalog's warehouse and Spark's scratch files beside its stop file,
    # in the test's own folder (not /tmp, where nothing removes them).
    own = Path(stop_file).with_name(f"external_writer_{partition}")
    builder = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = (
        builder.master("local[1]")
        .config("spark.jars", jars)
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
        .config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog"
        )
        .config("spark.sql.catalogImplementation", "in-memory")
        .config("spark.sql.warehouse.dir", str(own / "warehouse"))
        .config("spark.local.dir", str(own / "scratch"))
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    # The table's own settings (keys, partitioning) come from its hoodie.properties;
    # Hudi checks that the writer's database name is the table's.
    spark.sql(f"create database {database}")
    spark.sql(f"create table {database}.shared using hudi location '{table_path}'")
    for key, value in {
        **json.loads(settings),
        "hoodie.spark.sql.insert.into.operation": "upsert",
    }.items():
        spark.conf.set(key, value)
    print(json.dumps({"ready": True}), flush=True)
    attempt = 0
    while not Path(stop_file).exists():
        attempt += 1
        try:
            spark.sql(
                f"insert into {database}.shared select id, {1000 + attempt} as run, '{partition}' as source from range(1, 51)"
            )
            print(json.dumps({"attempt": attempt, "ok": True}), flush=True)
        except Exception as exc:  # the write's own failure, reported to the test
            print(json.dumps({"attempt": attempt, "ok": False, "error": summary(exc)}), flush=True)
            time.sleep(0.5)
    rows = spark.sql(
        f"select source, count(*), count(distinct id), min(run), max(run) "
        f"from {database}.shared group by source order by source"
    ).collect()
    print(json.dumps({"rows": [list(row) for row in rows]}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
