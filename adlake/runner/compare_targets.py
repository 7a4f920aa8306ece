"""The warehouse on each execution target, built from the same data, its ADS
tables compared row by row.

    python -m adlake.runner.compare_targets [--targets local,thrift,connect,thrift-cluster,connect-cluster]
                                    [--formats hudi,iceberg,delta] [--checks every-batch|at-end]
                                    [--batches 3] [--events 20000] [--seed 7] [--catalog] [--work DIR]

(or `adlake-targets ...`).

Targets: `local` (the embedded session, as `make run`), `thrift` and `connect`
(a Spark Thrift or Spark Connect server with Hudi, started here by
adlake.servers.spark_server), and `thrift-cluster`, `connect-cluster` (the same
servers as the drivers of a local standalone cluster of two workers,
adlake.servers.cluster). For each target, in order, it lands the batches one
by one and runs one `dbt build` per batch (its tests check what it wrote;
with --checks at-end, no tests), then `dbt test` (whole tables); checks the
warehouse's totals against the generator's truth after every batch; and
keeps the rows of every ADS table. Then it compares each target's ADS
tables with the first target's, row by row, and prints a line per target.

With --formats, each target builds the warehouse once per table format
(the project's `table_format` var: every model's tables in Hudi's, Iceberg's
or Delta's format), each in schemas of its own on the target's one session
or server, which is started with every format listed; each build is
compared with the first target's first format (list hudi first to compare
the other formats with Hudi's build).

With --catalog, the servers share one Hive catalog on PostgreSQL
(adlake.servers.catalog) and one warehouse folder, each target in a schema of
its own (w_<target>): while the Connect target builds, the Thrift server (the
BI readers' way in) reads the same ADS tables after every batch and must see
what the Connect session sees.

Everything this starts (servers, cluster, catalog) it stops, by process id,
whatever happens. It exits non-zero on a failed build or test, a total that
differs from the truth, or an ADS table that differs between targets.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import yaml

from adlake.generator import generate
from adlake.landing import land_batch
from adlake.runner.readers import Query, query_function
from adlake.runner.warehouse import Builds, tally, work_args
from adlake.servers import catalog, cluster, spark_server
from dbt.adapters.lakehouse.formats.registry import FORMATS

TARGETS = ("local", "thrift", "connect", "thrift-cluster", "connect-cluster")
ADS_TABLES = (
    "ads_spend_by_customer",
    "ads_spend_by_industry",
    "ads_today_vs_yesterday",
    "ads_top_advertisers_today",
)


class TargetFailed(Exception):
    pass


def method_of(target: str) -> str:
    return {"local": "session"}.get(target, target.removesuffix("-cluster"))


def label(target: str, fmt: str) -> str:
    """A build's name in the results: the target, with the format unless Hudi's."""
    return target if fmt == "hudi" else f"{target}/{fmt}"


def profile(
    target: str, work: Path, schema: str, port: int | None, formats: Iterable[str] = ("hudi",)
) -> dict:
    """One target's profile output, as a user would write it (`formats`: the
    table formats the embedded session loads besides Hudi's)."""
    method = method_of(target)
    output: dict = {"type": "lakehouse", "method": method, "schema": schema, "threads": 4}
    if method == "session":
        output["lake_dir"] = str(work / "lake")
        others = [f for f in formats if f != "hudi"]
        if others:
            output["table_formats"] = others
    else:
        output |= {"host": "127.0.0.1", "port": port, "connect_retries": 0}
        if method == "thrift":
            output["user"] = "dbt"
    return output


def write_profile(folder: Path, output: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump({"adlake": {"target": "t", "outputs": {"t": output}}})
    (folder / "profiles.yml").write_text(text)


def table_columns(query: Query, table: str) -> list[str]:
    """The table's columns, from DESCRIBE (SHOW COLUMNS takes no Iceberg or
    Delta table): its rows up to the first blank or `#` section heading."""
    columns = []
    for row in query(f"describe {table}"):
        name = str(row[0]).strip()
        if not name or name.startswith("#"):
            break
        columns.append(name)
    return columns


def ads_rows(query: Query, schema: str) -> dict[str, list[tuple]]:
    """Every ADS table's rows, sorted, each value as text: the Thrift client
    returns dates, timestamps and decimals as text, the Spark clients as
    Python objects whose text is the same. Hudi's _hoodie_* columns (commit
    times, file names) are each run's own, so they are left out."""
    found = {}
    for table in ADS_TABLES:
        name = f"{schema}_ads.{table}"
        columns = table_columns(query, name)
        own = ", ".join(f"`{c}`" for c in columns if not c.startswith("_hoodie_"))
        found[table] = sorted(
            tuple(None if v is None else str(v) for v in row)
            for row in query(f"select {own} from {name}")
        )
    return found


def totals(query: Query, schema: str) -> dict:
    spend, events = query(
        f"select (select coalesce(sum(spend_micros), 0) from {schema}_ads.ads_spend_by_industry), "
        f"(select count(*) from {schema}_dwd.dwd_billing_events)"
    )[0]
    return {"cost_micros": int(spend), "events": int(events)}


class Servers:
    """The servers the targets need, each started once, all stopped at the end."""

    def __init__(
        self,
        stack: ExitStack,
        work: Path,
        catalog_dir: Path | None,
        formats: Iterable[str] = ("hudi",),
    ) -> None:
        self.stack, self.work, self.catalog_dir = stack, work, catalog_dir
        # The table formats each server is started with.
        self.formats = ["hudi", *(f for f in formats if f != "hudi")]
        self.ports: dict[str, int] = {}
        self.master: str | None = None

    def cluster_master(self) -> str:
        if self.master is None:
            folder = self.work / "cluster"
            self.master = cluster.start(folder)["master_url"]
            self.stack.callback(cluster.stop, folder)
        return self.master

    def port(self, target: str, stack: ExitStack | None = None) -> int:
        """The port of the target's server, started if it is not running; it
        stops when `stack` closes (default: at the end of the run). A
        standalone cluster gives its first application every core: a server
        on the cluster must stop before the next one can run anything."""
        if target not in self.ports:
            method = method_of(target)
            master = self.cluster_master() if target.endswith("-cluster") else "local[2]"
            folder = self.work / "servers" / target
            port = spark_server.free_port()
            spark_server.start(
                method,
                port,
                folder,
                master=master,
                catalog_dir=self.catalog_dir,
                formats=self.formats,
            )
            self.ports[target] = port
            (stack or self.stack).callback(self._stop, target, method, folder)
        return self.ports[target]

    def _stop(self, target: str, method: str, folder: Path) -> None:
        self.ports.pop(target, None)
        spark_server.stop(method, folder)


def build_target(
    target: str,
    work: Path,
    generated: Path,
    batches: int,
    truth: list[dict],
    port: int | None,
    schema: str,
    watch: Callable[[int], None] | None = None,
    check_batches: bool = True,
    test_after: bool = True,
    table_format: str = "hudi",
    formats: Iterable[str] = ("hudi",),
) -> dict:
    """Lands and builds every batch on `target` in `table_format`, then `dbt
    test`; returns its figures and ADS rows. Without `check_batches`, a
    batch's build leaves its data tests to the `dbt test` after the last
    one; without `test_after`, the batches' checks are all (the figures'
    `tests` are the last build's). The target's lake starts empty for the
    first of the `formats` it builds (the others build beside it)."""
    method = method_of(target)
    folder = work / target
    formats = list(formats)
    if table_format == formats[0]:
        for sub in ("lake", "landing", "target", "logs"):
            shutil.rmtree(folder / sub, ignore_errors=True)
    write_profile(folder / "profiles", profile(target, folder, schema, port, formats))
    # Each format's build ingests the batches as they land, from a folder of its own.
    landing = folder / "landing" / table_format
    os.environ["ADLAKE_LANDING_DIR"] = str(landing)
    builds = Builds(work_args(folder), table_format=table_format)
    query = query_function(method, port)
    seconds = []
    for batch in range(1, batches + 1):
        land_batch(generated, landing, batch)
        started = time.perf_counter()
        # Each build checks what it wrote; the `dbt test` after the last
        # batch checks whole tables (a full check in the last build too
        # would run every test twice).
        result = builds.build("changed", tests=check_batches)
        seconds.append(time.perf_counter() - started)
        found = totals(query, schema)
        if found != {k: truth[batch - 1][k] for k in found}:
            raise TargetFailed(
                f"{label(target, table_format)}: batch {batch} totals {found} differ from the truth"
            )
        print(
            f"{label(target, table_format)}: batch {batch}/{batches} built [{tally(result)}] "
            f"in {seconds[-1]:.1f} s, totals equal the truth",
            flush=True,
        )
        if watch is not None:
            watch(batch)
    if test_after:
        result = builds.build("full", command="test")
        print(f"{label(target, table_format)}: dbt test [{tally(result)}]", flush=True)
    return {"seconds": seconds, "ads": ads_rows(query, schema), "tests": tally(result)}


def compare(reference: dict[str, list[tuple]], other: dict[str, list[tuple]]) -> list[str]:
    """Tables whose rows differ, with the first differing row."""
    differences = []
    for table, rows in reference.items():
        theirs = other[table]
        if rows != theirs:
            first = next(
                (i for i, (a, b) in enumerate(zip(rows, theirs, strict=False)) if a != b),
                min(len(rows), len(theirs)),
            )
            differences.append(
                f"{table}: {len(rows)} rows against {len(theirs)}; first difference at row "
                f"{first}: {rows[first] if first < len(rows) else '-'} against "
                f"{theirs[first] if first < len(theirs) else '-'}"
            )
    return differences


@contextmanager
def shared_catalog(folder: Path | None) -> Iterator[Path | None]:
    """A catalog started in `folder` (None: no catalog), stopped afterwards."""
    if folder is None:
        yield None
        return
    catalog.start(folder)
    os.environ[catalog.PASSWORD_ENV] = catalog.password(folder)
    try:
        yield folder
    finally:
        catalog.stop(folder)


def run(
    targets: list[str],
    work: Path,
    batches: int = 3,
    events: int = 20_000,
    seed: int = 7,
    catalog_dir: Path | None = None,
    after_target: Callable[[str, dict[str, int]], None] | None = None,
    batches_checked_on: Iterable[str] | None = None,
    formats: Iterable[str] = ("hudi",),
) -> dict:
    """Builds the warehouse on each target, once per table format of
    `formats`; returns each build's figures (by label()) and its differences
    from the first; raises TargetFailed on any failure.
    With `catalog_dir`, the servers share a catalog run from that folder
    (which PostgreSQL's account must reach: see adlake.servers.catalog).
    `after_target(target, ports)` runs after each target's build, with the
    ports of the servers up then (the target's own among them): a test runs
    more against them. `batches_checked_on`: the
    targets whose batch builds run their data tests, and no `dbt test` after
    (the others are checked whole once, after their last batch); by default
    every target does both."""
    formats = list(formats)
    checked = set(targets if batches_checked_on is None else batches_checked_on)
    both = batches_checked_on is None
    generated = work / "generated"
    truth = generate(generated, seed=seed, events=events, batches=batches, force=True)["batches"]
    results: dict[str, dict] = {}
    # The servers stop (the stack) before the catalog they use.
    with shared_catalog(catalog_dir), ExitStack() as stack:
        servers = Servers(stack, work, catalog_dir, formats)
        for target in targets:
            base = f"w_{target.replace('-', '_')}" if catalog_dir else "adlake"
            with ExitStack() as own:  # this target's server stops after it
                for fmt in formats:
                    schema = base if fmt == "hudi" else f"{base}_{fmt}"
                    watch = None
                    if catalog_dir and method_of(target) == "connect":
                        watch = bi_reader_check(servers, target, schema, own)
                    port = None if target == "local" else servers.port(target, own)
                    results[label(target, fmt)] = build_target(
                        target,
                        work,
                        generated,
                        batches,
                        truth,
                        port,
                        schema,
                        watch,
                        check_batches=target in checked,
                        test_after=both or target not in checked,
                        table_format=fmt,
                        formats=formats,
                    )
                if after_target is not None:
                    after_target(target, dict(servers.ports))
    reference = results[label(targets[0], formats[0])]
    for figures in results.values():
        figures["differences"] = compare(reference["ads"], figures["ads"])
    return results


def bi_reader_check(
    servers: Servers, target: str, schema: str, stack: ExitStack
) -> Callable[[int], None]:
    """After each batch of a Connect target: the Thrift server, on the same
    catalog, must read the same ADS rows as the Connect session. (The Thrift
    server lives on, for a `thrift` target; the Connect one stops with `stack`.)"""
    reader = query_function("thrift", servers.port("thrift"))
    writer = query_function("connect", servers.port(target, stack))

    def check(batch: int) -> None:
        seen, written = ads_rows(reader, schema), ads_rows(writer, schema)
        if seen != written:
            raise TargetFailed(
                f"batch {batch}: the Thrift server reads other ADS rows than {target}"
            )
        print(f"{target}: batch {batch}: the Thrift server reads the same ADS rows", flush=True)

    return check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="local,thrift,connect,thrift-cluster,connect-cluster")
    parser.add_argument(
        "--formats",
        default="hudi",
        help="the table formats each target builds the warehouse in, e.g. hudi,iceberg,delta "
        "(default hudi; the first is the reference)",
    )
    parser.add_argument(
        "--checks",
        choices=("every-batch", "at-end"),
        default="every-batch",
        help="every-batch: each batch's build runs its data tests, and `dbt test` runs after "
        "the last (default); at-end: only that `dbt test`",
    )
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--catalog", action="store_true", help="servers share a PostgreSQL catalog")
    parser.add_argument("--work", type=Path, help="default: a new temporary folder")
    parser.add_argument("--json", type=Path, help="write each target's figures here")
    args = parser.parse_args(argv)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = sorted(set(targets) - set(TARGETS))
    if unknown or not targets:
        parser.error(f"unknown target(s) {unknown}; choose from {', '.join(TARGETS)}")
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats or len(set(formats)) < len(formats):
        parser.error(f"--formats {args.formats}: list each of {', '.join(FORMATS)} at most once")
    work = (args.work or Path(tempfile.mkdtemp(prefix="adlake-targets-"))).resolve()
    catalog_dir = None
    if args.catalog:
        # Under /tmp: run by root, PostgreSQL runs as another account, which
        # must reach the folder.
        catalog_dir = Path(tempfile.mkdtemp(prefix="adlake-catalog-"))
        catalog_dir.chmod(0o755)
    try:
        results = run(
            targets,
            work,
            args.batches,
            args.events,
            args.seed,
            catalog_dir,
            batches_checked_on=None if args.checks == "every-batch" else [],
            formats=formats,
        )
    except TargetFailed as exc:
        print(f"targets: {exc}")
        return 1
    finally:
        if catalog_dir is not None:
            shutil.rmtree(catalog_dir, ignore_errors=True)
    reference = label(targets[0], formats[0])
    print(f"\n{'target':<22} {'s per batch':>24}  ADS against {reference}")
    for name, figures in results.items():
        per_batch = ", ".join(f"{s:.0f}" for s in figures["seconds"])
        verdict = "; ".join(figures["differences"]) or "identical, row by row"
        print(f"{name:<22} {per_batch:>24}  {verdict}")
    if args.json:
        serial = {t: {k: v for k, v in f.items() if k != "ads"} for t, f in results.items()}
        args.json.write_text(json.dumps(serial, indent=2) + "\n")
    return 1 if any(f["differences"] for f in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
