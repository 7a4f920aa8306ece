"""What a new project costs a process that runs several: the embedded session
moved to the project's lake, against a new schema in the catalog it is on.

    python -m adlake.bench.lake_moves [--lakes 8] [--work DIR] [--json FILE] [--jfr FILE]
        [--hudi-jar JAR] [--lake-catalog metastore|folder]

One process, one Spark JVM, as in dbt's adapter tests or an orchestrator
calling dbt in-process (adapter/README.md, "Several projects in one
process"). For each of --lakes new lakes, in turn:

- move: the session moved to the new lake (session/lake_switch.py: the last lake's
  lock released, a session state of the lake's own on the same Spark
  context; with `--lake-catalog metastore`, its catalog database shut down);
- first catalog call: `create schema`, the lake's first (the schema's file
  written in the lake's catalog folder, lake/catalog.py; with
  `--lake-catalog metastore`, Hive and DataNucleus start on the lake's Derby
  database, a copy of an empty one);
- a small parquet `create table ... as select`, then `show tables`.

Then the same statements on one lake, each in a new schema: what a new project
costs where every project shares one catalog (plain dbt-spark's session).
The figures are medians over the lakes after the first two (the first moves
load classes). With --jfr, the JVM records a profile of the moves and the
benchmark prints which parts of Hive, DataNucleus and Derby its samples fell
in. It prints the figures; it asserts no time.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from dbt.adapters.lakehouse.session import embedded as embedded_session
from dbt.adapters.lakehouse.session import jdk

STATEMENTS = {
    "first catalog call": "create schema if not exists {schema}",
    "ctas": "create table {schema}.t using parquet as select 1 as id",
    "show tables": "show tables in {schema}",
}
# A profile's default, as a three-line profile's session gets.
MASTER = LakehouseCredentials.master
# Where a move's JVM time goes: a sample counts once for each of these its
# stack passes through (so the shares overlap).
PARTS = {
    "Hive's store started (ObjectStore.initialize)": "hive/metastore/ObjectStore.initialize",
    "DataNucleus' factory made (ObjectStore.getPMF)": "hive/metastore/ObjectStore.getPMF",
    "Hive's direct-SQL checks (MetaStoreDirectSql.<init>)": "hive/metastore/MetaStoreDirectSql.<init>",
    "Hive's default database and roles (HMSHandler.init)": "HiveMetaStore$HMSHandler.init",
    "Hive's settings read (HiveConf.<init>)": "hive/conf/HiveConf.<init>",
    "Derby compiling statements (GenericStatement.prepare)": "derby/impl/sql/GenericStatement.prepare",
}


def _timed(run) -> float:
    return _timed_result(run)[0]


def _timed_result(run):
    """The seconds `run` took, and what it returned."""
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def _statements(session, schema: str) -> dict[str, float]:
    return {
        name: _timed(lambda sql=sql: session.sql(sql.format(schema=schema)).collect())
        for name, sql in STATEMENTS.items()
    }


def _jvm_pid(session) -> int:
    bean = session.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    return int(bean.getPid())


def _jfr(pid: int, *args: str) -> None:
    jcmd = jdk.tool("jcmd")
    if jcmd is None:
        raise SystemExit("--jfr needs the JDK's jcmd")
    subprocess.run([str(jcmd), str(pid), *args], check=True, capture_output=True)


def _shares(recording: Path) -> dict[str, float]:
    """The share of the recording's execution samples in each of PARTS."""
    jfr = jdk.tool("jfr")
    if jfr is None:
        raise SystemExit("--jfr needs the JDK's jfr")
    printed = subprocess.run(
        [str(jfr), "print", "--json", "--stack-depth", "128", "--events", "jdk.ExecutionSample"]
        + [str(recording)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    events = json.loads(printed)["recording"]["events"]
    counts: collections.Counter[str] = collections.Counter()
    for event in events:
        frames = event["values"]["stackTrace"]["frames"]
        names = [f"{f['method']['type']['name']}.{f['method']['name']}" for f in frames]
        counts.update(part for part, mark in PARTS.items() if any(mark in n for n in names))
    return {part: counts[part] / max(len(events), 1) for part in PARTS} | {"samples": len(events)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lakes", type=int, default=8)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--jfr", type=Path, default=None, help="record the moves' JVM profile here")
    parser.add_argument("--hudi-jar", default=None, help="the profile's hudi_jar (default: found)")
    parser.add_argument(
        "--lake-catalog",
        choices=lake_catalog.KINDS,
        default=lake_catalog.DEFAULT,
        help="where each lake keeps its catalog (the profile's lake_catalog)",
    )
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="lake-moves-"))

    def session_on(lake: Path):
        conf = {lake_catalog.CONF: args.lake_catalog}
        return embedded_session.root_session(str(lake), args.hudi_jar, MASTER, conf)

    moves: list[dict[str, float]] = []
    session = session_on(work / "lake0")
    session.sql("select 1").collect()
    if args.jfr:
        _jfr(_jvm_pid(session), "JFR.start", "name=lake_moves", "settings=profile")
    for number in range(1, args.lakes + 1):
        lake = work / f"lake{number}"
        seconds, session = _timed_result(lambda lake=lake: session_on(lake))
        figures = {"move": seconds, **_statements(session, "s")}
        moves.append(figures)
        print(", ".join(f"{k} {v:.3f} s" for k, v in figures.items()), f"(lake {number})")
    if args.jfr:
        _jfr(_jvm_pid(session), "JFR.dump", "name=lake_moves", f"filename={args.jfr}")
    shared = [_statements(session, f"shared_{n}") for n in range(args.lakes)]

    kept = moves[2:] or moves
    result = {
        "command": "python -m adlake.bench.lake_moves",
        "lakes": args.lakes,
        "new lake": {k: statistics.median(m[k] for m in kept) for k in moves[0]},
        "new schema, one catalog": {
            k: statistics.median(s[k] for s in shared[2:] or shared) for k in shared[0]
        },
    }
    print(f"\nmedians over lakes 3..{args.lakes}, seconds:")
    for name, figures in result.items():
        if isinstance(figures, dict):
            print(f"  {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in figures.items()))
    if args.jfr:
        result["jfr"] = _shares(args.jfr)
        print(f"JVM samples during the moves ({result['jfr']['samples']}), share in:")
        for part in PARTS:
            print(f"  {result['jfr'][part]:5.0%} {part}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
