"""Runs `dbt run` once per batch, all in this one process (one Spark JVM), and
prints a line as each batch completes. The crash tests start it in a process
group of its own and kill that group with SIGKILL part-way.

    python dbt_batches.py <project_dir> <first_batch> <last_batch> [--var key=value] [--query SQL]

Each --var is passed to dbt along with `batch`. Each --query runs after the
batches, on the session dbt used, and prints `ROW` and its first row's values
(the test process cannot read this lake: its embedded metastore admits one JVM).
"""

import argparse
import json
import sys

from dbt.cli.main import dbtRunner


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project")
    parser.add_argument("first", type=int)
    parser.add_argument("last", type=int)
    parser.add_argument("--var", action="append", default=[])
    parser.add_argument("--query", action="append", default=[])
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.var)
    for batch in range(args.first, args.last + 1):
        result = dbtRunner().invoke(["run", "--project-dir", args.project, "--profiles-dir", args.project,
                                     "--vars", json.dumps({"batch": batch, **extra})])
        if not result.success:
            print(f"batch {batch} failed: {result.exception}", flush=True)
            sys.exit(1)
        print(f"batch {batch} done", flush=True)
    if args.query:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession() or SparkSession._instantiatedSession
        for query in args.query:
            print("ROW", *spark.newSession().sql(query).collect()[0], flush=True)


if __name__ == "__main__":
    main()
