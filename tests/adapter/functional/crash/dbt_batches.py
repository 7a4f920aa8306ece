"""Runs `dbt run` once per batch, all in this one process (one Spark JVM), and
prints a line as each batch completes. The crash tests start it in a process
group of its own and kill that group with SIGKILL part-way.

    python dbt_batches.py <project_dir> <first_batch> <last_batch> [--var key=value]
                          [--operation MACRO] [--query SQL] [--command build]

Each --var is passed to dbt along with `batch`. An --operation runs (`dbt
run-operation`) after each batch, or once when there is no batch (first >
last), and prints a line when done. --command runs another dbt command than
`run` for each batch (`build`: seeds, models and snapshots). Each --query runs after the batches, on
the session dbt used, and prints `ROW` and its first row's values (the test
process cannot read this lake: its embedded metastore admits one JVM).
"""

import argparse
import faulthandler
import json
import signal
import sys
from typing import Any

from dbt.cli.main import dbtRunner


def main() -> None:
    # `kill -USR1 <pid>` prints every thread's stack: where a held run waits.
    faulthandler.register(signal.SIGUSR1)
    parser = argparse.ArgumentParser()
    parser.add_argument("project")
    parser.add_argument("first", type=int)
    parser.add_argument("last", type=int)
    parser.add_argument("--var", action="append", default=[])
    parser.add_argument("--operation")
    parser.add_argument("--query", action="append", default=[])
    parser.add_argument("--command", default="run")
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.var)
    batches = range(args.first, args.last + 1)
    for batch in batches or [None]:
        # The models read var('batch') when dbt parses them, an operation's run too.
        dbt_vars = {"batch": args.last if batch is None else batch, **extra}
        if batch is not None:
            invoke(args.project, [args.command], dbt_vars, f"batch {batch}")
        if args.operation:
            invoke(
                args.project,
                ["run-operation", args.operation],
                dbt_vars,
                f"operation {args.operation}",
            )
    if args.query:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession() or SparkSession._instantiatedSession
        for query in args.query:
            print("ROW", *spark.newSession().sql(query).collect()[0], flush=True)


def invoke(project: str, command: list[str], dbt_vars: dict[str, Any], label: str) -> None:
    result = dbtRunner().invoke(
        [
            *command,
            "--project-dir",
            project,
            "--profiles-dir",
            project,
            "--vars",
            json.dumps(dbt_vars),
        ]
    )
    if not result.success:
        print(f"{label} failed: {result.exception}", flush=True)
        sys.exit(1)
    print(f"{label} done", flush=True)


if __name__ == "__main__":
    main()
