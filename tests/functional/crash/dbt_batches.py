"""Runs `dbt run` once per batch, all in this one process (one Spark JVM), and
prints a line as each batch completes. The crash tests start it in a process
group of its own and kill that group with SIGKILL part-way.

    python dbt_batches.py <project_dir> <first_batch> <last_batch> [key=value ...]

Each `key=value` is passed to dbt as a var along with `batch`.
"""

import json
import sys

from dbt.cli.main import dbtRunner


def main() -> None:
    project, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    extra = dict(arg.split("=", 1) for arg in sys.argv[4:])
    for batch in range(first, last + 1):
        args = ["run", "--project-dir", project, "--profiles-dir", project,
                "--vars", json.dumps({"batch": batch, **extra})]
        result = dbtRunner().invoke(args)
        if not result.success:
            print(f"batch {batch} failed: {result.exception}", flush=True)
            sys.exit(1)
        print(f"batch {batch} done", flush=True)


if __name__ == "__main__":
    main()
