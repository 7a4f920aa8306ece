"""Runs dbt commands on a project whose profile reads secrets from the
environment, in a process (and Spark JVM) of its own, so that the profile's
spark_conf is what the JVM starts with. Then writes a report, without any
secret in it, to the path given:

    python dbt_with_secrets.py <project_dir> <report.json> <SECRET_ENV_NAME>...

- commands: each dbt command and whether it succeeded;
- spark_conf_applied: every spark_conf secret reached the SparkContext;
- jvm_cmdline_secrets: the names of the variables whose value is on the JVM's
  command line (readable by every local user through ps);
- jvm_listening: (address, port) of every socket the JVM listens on.
"""

import hashlib
import json
import os
import sys
from pathlib import Path

from dbt.cli.main import dbtRunner

# Run as a script: Python puts the script's own folder first on the import path,
# so its sibling module imports by its own name.
from sockets import listening

COMMANDS = [
    ["debug"],
    ["seed"],
    ["run"],
    ["test"],
    ["docs", "generate"],
    # Fails unless the server_side_parameters secret reached dbt's session
    # (compared by its md5, so that the secret is in no command or log line).
    [
        "run-operation",
        "assert_session_setting",
        "--vars",
        json.dumps(
            {"expected_md5": hashlib.md5(os.environ["LAKE_TEST_AZURE_KEY"].encode()).hexdigest()}
        ),
    ],
]


def main() -> None:
    project, report_path, names = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    report = {"commands": []}
    for command in COMMANDS:
        result = dbtRunner().invoke(command + ["--project-dir", project, "--profiles-dir", project])
        report["commands"].append([" ".join(command), result.success])

    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession._instantiatedSession
    conf = spark.sparkContext.getConf()
    report["spark_conf_applied"] = (
        conf.get("spark.hadoop.fs.s3a.secret.key") == os.environ["LAKE_TEST_S3_SECRET"]
    )
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    report["jvm_cmdline_secrets"] = [n for n in names if os.environ[n].encode() in cmdline]
    report["jvm_listening"] = listening(pid)
    report_path.write_text(json.dumps(report))


if __name__ == "__main__":
    main()
