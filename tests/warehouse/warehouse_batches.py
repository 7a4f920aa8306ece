"""Builds this repository's warehouse batch by batch in one process (one Spark
JVM), the way adlake.runner.warehouse does, on a work folder of its own, and
prints a line as each batch completes. The warehouse crash tests
(test_killed_warehouse.py, kill_loop.py) start it in a process group of its
own and kill that group with SIGKILL part-way.

    python warehouse_batches.py <work> <first_batch> <last_batch> [--vars JSON] [--no-tests]
        [--test-after] [--digest] [--digest-after N ...]

<work> is a folder made by `prepare_work`: its lake (lake/, with the Derby
metastore), profiles/profiles.yml pointing `lake_dir` there, the landing folder
(landing/, given to the project as ADLAKE_LANDING_DIR), dbt's target/ and
logs/, and work.json naming the schema and the generated data folder. Nothing
is written in the repository. For each batch it lands the batch's files
(adlake.landing) and runs one `dbt build` (with `--no-tests`, the data tests
are left out: `--exclude-resource-type test`), then prints
`batch N done in S s` (seconds since the process started). With
--test-after, every data test runs once after the last batch.

With --digest, after the batches it prints, for every table of every warehouse
schema (ref, ods, dwd, dws, ads; Hudi's _ro/_rt views and the adapter's
scratch tables left out), `DIGEST <schema.table> <rows> <hash>`: the hash is
the sum of xxhash64 over each row's columns (order-independent), leaving out
Hudi's `_hoodie_*` meta columns and RUN_TIME_COLUMNS, with the landing folder's
path in text columns replaced by `<landing>`; and, for each landed file of the
append feeds, `LANDED <feed>/<path in the landing folder> <rows in its ODS table>`.
With --digest-after N, the same after batch N too, between the lines
`DIGEST OF BATCH N` and `END OF BATCH N` (digest_of picks a batch's block):
one uninterrupted build serves tests that stop at different batches. Its
last line, `warehouse_batches: done`, tells a process that did not start it
(and so cannot wait for it) that it ended well.
A test process cannot open this lake (its embedded metastore admits one JVM),
so the child prints what the test compares. It also prints `spark ready in S s`
when dbt's first node starts (the JVM and its session are up by then), and
appends to <work>/staged.log the name of each batch the adapter stages in
memory (the embedded session holds a write's batch there, not in a scratch
folder on the lake), as it starts staging it: what the kill points see of it.

Imported as a module, it gives the parent's side: `Child` (a run in a process
group of its own, killed with SIGKILL at a point read off the lake's files),
the named kill points (`POINTS`), `Chain` (runs the batches to the end, killing
children on the way) and what was in flight at a kill (`in_flight`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from adlake.landing import BUCKET_SCHEMES, land_batch
from adlake.runner import compare_targets

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = ("ref", "ods", "dwd", "dws", "ads")
# Columns set from a clock: when a run wrote the row (current_timestamp() in
# models/), or when its file was landed (file_modified_at, the landed file's
# modification time; each run lands files of its own). They legitimately
# differ between two runs of the same data.
RUN_TIME_COLUMNS = ("ingested_at", "checked_at", "file_modified_at")
# Append feeds: each landed file's lines are rows of this ODS table.
FEED_TABLES = {"billing_events": "ods_billing_events_raw", "account_changes": "ods_account_changes"}
STARTED = time.monotonic()
# In the work folder: a line per batch the child staged in memory (see above).
STAGED_LOG = "staged.log"


class Work:
    """The folders of one child's work folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.lake = self.root / "lake"
        self.profiles = self.root / "profiles"
        settings = json.loads((self.root / "work.json").read_text())
        self.schema: str = settings["schema"]
        self.generated = Path(settings["generated"])
        # Where the batches' files are, and where the project reads them: the
        # same folder, or a bucket's prefix (the batches are PUT there) whose
        # objects are the files of that folder (the S3 server's own).
        self.landing = Path(settings.get("landing", self.root / "landing"))
        self.landing_uri: str = settings.get("landing_uri", str(self.landing.resolve()))
        # The tables' files: in the lake, or the S3 server's folder of the
        # bucket prefix the profile gives as warehouse_dir.
        self.warehouse = Path(settings.get("warehouse", self.lake / "warehouse"))

    def table_dir(self, layer: str, table: str) -> Path:
        return self.warehouse / f"{self.schema}_{layer}.db" / table


def prepare_work(
    root: Path,
    schema: str,
    generated: Path,
    hudi_jar: Path,
    landing: tuple[Path, str] | None = None,
    warehouse: tuple[Path, str] | None = None,
    **profile: object,
) -> Work:
    """A fresh work folder for a child on the generated data in `generated`;
    `landing` is (the folder the batches land in, the URI the project reads
    it at) when not <root>/landing itself; `warehouse` likewise (the folder
    that holds the tables' files, the profile's warehouse_dir) when not in
    the lake; `profile` adds fields to its profile (spark_conf)."""
    import yaml

    root = Path(root)
    (root / "profiles").mkdir(parents=True)
    settings = {"schema": schema, "generated": str(Path(generated).resolve())}
    if landing is None:
        (root / "landing").mkdir()
    else:
        landing[0].mkdir(parents=True)
        settings.update(landing=str(landing[0].resolve()), landing_uri=landing[1])
    if warehouse is not None:
        settings["warehouse"] = str(warehouse[0].resolve())
        profile["warehouse_dir"] = warehouse[1]
    # The debugging agent, for a child held at a HeldPoint. (Imported here:
    # this file is also the child's script, which has no `tests` package.)
    from tests.jvm_breakpoints import PROFILE_JAVA_OPTIONS

    spark_conf = profile.get("spark_conf")
    profile["spark_conf"] = {
        **(spark_conf if isinstance(spark_conf, dict) else {}),
        **PROFILE_JAVA_OPTIONS,
    }
    (root / "work.json").write_text(json.dumps(settings))
    (root / "profiles" / "profiles.yml").write_text(
        yaml.safe_dump(
            {
                "adlake": {
                    "target": "local",
                    "outputs": {
                        "local": {
                            "type": "lakehouse",
                            "method": "session",
                            "schema": schema,
                            "lake_dir": str((root / "lake").resolve()),
                            "hudi_jar": str(hudi_jar),
                            "threads": 1,
                            **profile,
                        }
                    },
                }
            }
        )
    )
    return Work(root)


def landed_line_counts(landing: Path) -> dict[str, int]:
    """`<feed>/<path>` -> lines, for each file landed in the append feeds, counted
    as the project's landed_lines does (lines end at LF; a final LF ends the
    last line; an empty file has none; a last line without LF counts)."""
    counts = {}
    for feed in FEED_TABLES:
        for path in sorted((Path(landing) / feed).rglob("*")):
            relative = path.relative_to(landing)
            if path.is_file() and not any(part.startswith((".", "_")) for part in relative.parts):
                data = path.read_bytes()
                body = data[:-1] if data.endswith(b"\n") else data
                counts[relative.as_posix()] = body.count(b"\n") + 1 if data else 0
    return counts


def digest_of(output: str, batch: int) -> str | None:
    """The block a child printed after `batch` (--digest-after); None until it is complete."""
    found = re.search(
        rf"^DIGEST OF BATCH {batch}\n(.*?)^END OF BATCH {batch}$", output, re.M | re.S
    )
    return found.group(1) if found else None


def _without_blocks(output: str) -> str:
    return re.sub(r"^DIGEST OF BATCH (\d+)\n.*?^END OF BATCH \1\n", "", output, flags=re.M | re.S)


def parse_digest(output: str) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """The DIGEST and LANDED lines of a child's output after its last batch
    (or of one block digest_of picked)."""
    digests, landed = {}, {}
    for line in _without_blocks(output).splitlines():
        parts = line.split()
        if parts[:1] == ["DIGEST"] and len(parts) == 4:
            digests[parts[1]] = (int(parts[2]), int(parts[3]))
        elif parts[:1] == ["LANDED"] and len(parts) == 3:
            landed[parts[1]] = int(parts[2])
    return digests, landed


def parse_totals(output: str) -> dict[str, int] | None:
    """The TOTALS line of a child's output: the warehouse's totals under the
    names of the generator's truth (compare_targets.totals)."""
    found = re.search(r"^TOTALS (\{.*\})$", _without_blocks(output), re.M)
    return json.loads(found.group(1)) if found else None


def _user_tables(spark, schema: str) -> Iterator[str]:
    for row in spark.sql(f"show tables in {schema}").collect():
        name = row.tableName
        if row.isTemporary or name.endswith(("_ro", "_rt")) or "__lakehouse_" in name:
            continue
        yield name


def print_digest(work: Work) -> None:
    from pyspark.sql import SparkSession

    # The session dbt's adapter started; a new child session has no cached listings.
    spark = (SparkSession.getActiveSession() or SparkSession._instantiatedSession).newSession()
    landing = str(work.landing.resolve())
    prefixes = ["file:" + landing, landing, work.landing_uri]
    for layer in SCHEMAS:
        schema = f"{work.schema}_{layer}"
        for table in sorted(_user_tables(spark, schema)):
            name = f"{schema}.{table}"
            parts: list[str] = []
            # In name order: a table's columns are in the order its format
            # keeps them (Hudi puts the partition columns last, Iceberg and
            # Delta where the query put them).
            fields = sorted(spark.table(name).schema.fields, key=lambda f: f.name)
            for struct_field in fields:
                column = struct_field.name
                if column.startswith("_hoodie_") or column in RUN_TIME_COLUMNS:
                    continue
                value = f"`{column}`"
                if struct_field.dataType.typeName() == "string":
                    for prefix in prefixes:
                        value = f"replace({value}, '{prefix}', '<landing>')"
                parts += [value, f"`{column}` is null"]
            row = spark.sql(
                f"select count(*), coalesce(sum(cast(xxhash64({', '.join(parts)}) as decimal(38, 0))), 0) from {name}"
            ).collect()[0]
            print("DIGEST", name, row[0], row[1], flush=True)
    totals = compare_targets.totals(lambda sql: spark.sql(sql).collect(), work.schema)
    print("TOTALS", json.dumps(totals, sort_keys=True), flush=True)
    for table in FEED_TABLES.values():
        rows = spark.sql(
            f"select source_file, count(*) from {work.schema}_ods.{table} group by source_file"
        ).collect()
        for source_file, count in sorted(rows):
            relative = source_file
            for prefix in prefixes:
                relative = relative.replace(prefix + "/", "")
            print("LANDED", relative, count, flush=True)


# --- the parent's side ------------------------------------------------------------

HELPER = Path(__file__).resolve()
CLOSING = "warehouse_batches: done"
DONE = re.compile(r"^batch (\d+) done in ([\d.]+) s$", re.M)
READY = re.compile(r"^spark ready in ([\d.]+) s$", re.M)
# Hudi 1.x timeline file names: <requested>_<completed>.<action> once completed;
# <requested>.<action>.requested|inflight before (a COW commit's inflight is
# <requested>.inflight). Other names (.crc, temporary files) are not instants.
COMPLETED = re.compile(r"^(\d+)_(\d+)\.([a-z]+)$")
PENDING = re.compile(r"^(\d+)\.(?:([a-z]+)\.)?(requested|inflight)$")


def timeline(table_dir: Path) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """(completed {instant: action}, pending {instant: (action, state)}) of a Hudi table."""
    completed: dict[str, str] = {}
    started: dict[str, tuple[str, str]] = {}
    try:
        names = os.listdir(table_dir / ".hoodie" / "timeline")
    except FileNotFoundError:
        return {}, {}
    for name in names:
        done = COMPLETED.match(name)
        if done:
            completed[done.group(1)] = done.group(3)
            continue
        pending = PENDING.match(name)
        if pending:
            instant, action, state = (
                pending.group(1),
                pending.group(2) or "commit",
                pending.group(3),
            )
            if state == "inflight" or instant not in started:
                started[instant] = (action, state)
    return completed, {i: a for i, a in started.items() if i not in completed}


def folder_entries(folder: Path) -> frozenset[tuple[str, int]]:
    """The names and modification times of a folder's entries (empty if it does not exist)."""
    try:
        with os.scandir(folder) as entries:
            return frozenset((e.name, e.stat(follow_symlinks=False).st_mtime_ns) for e in entries)
    except FileNotFoundError:
        return frozenset()


@dataclass(frozen=True)
class LakeState:
    """What a child's lake holds at one moment: each Hudi table's completed and
    pending instants, and the entries of each scratch folder."""

    completed: dict[str, dict[str, str]]
    pending: dict[str, dict[str, tuple[str, str]]]
    scratch: dict[str, frozenset[tuple[str, int]]]
    # When it was read, on the clock that stamps files' modification times.
    at_ns: int = 0


def lake_state(work: Work) -> LakeState:
    completed, pending = {}, {}
    for schema_dir in sorted(work.warehouse.glob(f"{work.schema}_*.db")):
        layer = schema_dir.name[len(work.schema) + 1 : -3]
        for table_dir in sorted(p for p in schema_dir.iterdir() if p.is_dir()):
            if "__lakehouse_" not in table_dir.name:
                name = f"{layer}.{table_dir.name}"
                completed[name], pending[name] = timeline(table_dir)
    return LakeState(completed, pending, scratch_state(work), time.time_ns())


def scratch_state(work: Work) -> dict[str, frozenset[tuple[str, int]]]:
    """Per scratch batch (layer.name): the entries of its scratch folder on
    the lake, and a ("staged in memory", line) entry for each time the child
    staged it in memory (STAGED_LOG). An entry new since armed: written since."""
    scratch: dict[str, set[tuple[str, int]]] = {}
    for folder in sorted(work.warehouse.glob(f"{work.schema}_*.db/*__lakehouse_*")):
        layer = folder.parent.name[len(work.schema) + 1 : -3]
        scratch[f"{layer}.{folder.name}"] = set(folder_entries(folder))
    try:
        staged = (work.root / STAGED_LOG).read_text().splitlines()
    except FileNotFoundError:
        staged = []
    for line, view in enumerate(staged):
        # The view is named <schema>__<scratch table's name>.
        schema, _, table = view.partition("__")
        layer = schema[len(work.schema) + 1 :]
        scratch.setdefault(f"{layer}.{table}", set()).add(("staged in memory", line))
    return {name: frozenset(entries) for name, entries in scratch.items()}


def new_pending(work: Work, armed: LakeState, table: str, action: str) -> list[str]:
    """Instants of `action` on `table` (layer.name) pending now that were not when armed."""
    layer, name = table.split(".")
    _, pending = timeline(work.table_dir(layer, name))
    before = armed.pending.get(table, {})
    return sorted(
        f"{i}.{a}.{s}" for i, (a, s) in pending.items() if a == action and i not in before
    )


def new_completed(work: Work, armed: LakeState, table: str) -> list[str]:
    layer, name = table.split(".")
    completed, _ = timeline(work.table_dir(layer, name))
    before = armed.completed.get(table, {})
    return sorted(f"{i}.{a}" for i, a in completed.items() if i not in before)


def scratch_written(work: Work, armed: LakeState, layer: str, prefix: str) -> list[str]:
    """Scratch batches of `layer` whose names start with `prefix`, written
    (or staged in memory) since armed."""
    return [
        name
        for name, entries in sorted(scratch_state(work).items())
        if name.startswith(f"{layer}.{prefix}") and entries - armed.scratch.get(name, frozenset())
    ]


@dataclass(frozen=True)
class KillPoint:
    """A point of a batch, read off the lake's files: `reached` says what it saw
    (None until then); `held`, on the lake of the killed child, whether the kill
    did land at that point (the files that would show the point passed are absent)."""

    name: str
    description: str
    reached: Callable[[Work, LakeState], str | None]
    held: Callable[[Work, LakeState, str], bool]


ODS = "ods.ods_billing_events"
DWD = "dwd.dwd_billing_events"
DWS = "dws.dws_spend_hourly"
ADS = "ads.ads_spend_by_customer"


def _first(found: list[str]) -> str | None:
    return found[0] if found else None


def _pending_point(
    name: str, description: str, table: str, action: str, states: tuple[str, ...]
) -> KillPoint:
    def reached(work: Work, armed: LakeState) -> str | None:
        return _first(
            [f"{table} {p}" for p in new_pending(work, armed, table, action) if p.endswith(states)]
        )

    def held(work: Work, armed: LakeState, seen: str) -> bool:
        instant = seen.split(" ")[-1].split(".")[0]
        return any(p.split(".")[0] == instant for p in new_pending(work, armed, table, action))

    return KillPoint(name, description, reached, held)


def dwd_files(work: Work, fmt: str) -> tuple[dict[str, int], dict[str, int]]:
    """dwd_billing_events as an Iceberg or Delta table: its data files and its
    commit files (Iceberg's metadata files, Delta's log entries), each with
    its modification time (ns)."""
    if fmt == "iceberg":
        table = work.warehouse / "iceberg" / f"{work.schema}_dwd" / "dwd_billing_events"
        data, commits, suffix = table / "data", table / "metadata", ".metadata.json"
    else:
        table = work.table_dir("dwd", "dwd_billing_events")
        data, commits, suffix = table, table / "_delta_log", ".json"

    def scan(folder: Path, pattern: str) -> dict[str, int]:
        found = {}
        for path in folder.rglob(pattern) if folder.exists() else []:
            if "_delta_log" in path.relative_to(folder).parts[:-1]:
                continue
            try:
                found[path.relative_to(folder).as_posix()] = path.stat().st_mtime_ns
            except FileNotFoundError:  # renamed or removed since listed
                pass
        return found

    return scan(data, "*.parquet"), scan(commits, f"*{suffix}")


def _data_before_commit(name: str, fmt: str, description: str) -> KillPoint:
    """A write of dwd_billing_events as `fmt`'s table with its data files
    written and no commit after them."""

    def reached(work: Work, armed: LakeState) -> str | None:
        data, commits = dwd_files(work, fmt)
        since = max([armed.at_ns, *commits.values()])
        fresh = sorted((t, n) for n, t in data.items() if t > since)
        return f"{fmt} {DWD} data file {fresh[0][1]} @{fresh[0][0]}" if fresh else None

    def held(work: Work, armed: LakeState, seen: str) -> bool:
        written = int(seen.rsplit("@", 1)[1])
        _, commits = dwd_files(work, fmt)
        return all(t < written for t in commits.values())

    return KillPoint(name, description, reached, held)


def _between_layers(work: Work, armed: LakeState) -> str | None:
    written = scratch_written(work, armed, "dws", "dws_spend_hourly__lakehouse_")
    if written and not any(
        new_pending(work, armed, DWD, a) for a in ("deltacommit", "compaction", "clean")
    ):
        return written[0]
    return None


POINTS: dict[str, KillPoint] = {
    point.name: point
    for point in [
        KillPoint(
            "before_dwd_commit",
            "DWD staged its batch (dwd_billing_events__lakehouse_batch, in memory or on the lake), no commit begun",
            lambda work, armed: _first(
                scratch_written(work, armed, "dwd", "dwd_billing_events__lakehouse_batch")
            ),
            lambda work, armed, seen: (
                not new_completed(work, armed, DWD)
                and not new_pending(work, armed, DWD, "deltacommit")
            ),
        ),
        _pending_point(
            "during_dwd_commit",
            "a delta commit of dwd_billing_events in flight",
            DWD,
            "deltacommit",
            ("inflight",),
        ),
        _pending_point(
            "during_ods_commit",
            "a commit of ods_billing_events in flight",
            ODS,
            "commit",
            ("inflight",),
        ),
        _pending_point(
            "during_compaction",
            "an inline compaction of dwd_billing_events planned or in flight",
            DWD,
            "compaction",
            ("requested", "inflight"),
        ),
        _pending_point(
            "during_ads_commit",
            "a commit of ads_spend_by_customer in flight",
            ADS,
            "commit",
            ("inflight",),
        ),
        _pending_point(
            "during_clean",
            "a clean of dwd_billing_events planned or in flight",
            DWD,
            "clean",
            ("requested", "inflight"),
        ),
        _data_before_commit(
            "iceberg_data_before_metadata",
            "iceberg",
            "dwd_billing_events as an Iceberg table: data files written, its metadata not swapped",
        ),
        _data_before_commit(
            "delta_data_before_log",
            "delta",
            "dwd_billing_events as a Delta table: data files written, no _delta_log entry",
        ),
        KillPoint(
            "between_layers",
            "DWD's write done, DWS begun reading it (a dws_spend_hourly batch staged), no DWS commit",
            _between_layers,
            lambda work, armed, seen: (
                not new_completed(work, armed, DWS) and not new_pending(work, armed, DWS, "commit")
            ),
        ),
    ]
}


@dataclass(frozen=True)
class HeldPoint:
    """A point of the code rather than of the files: the child's JVM runs
    with the debugging agent, the first thread that reaches one of `methods`
    is held there (tests/jvm_breakpoints.py), and the child is killed."""

    name: str
    description: str
    methods: tuple[str, ...]


# Where a table's first create is in flight: its folder written, the catalog
# not yet told. Each is the call of that format's own code that records its
# table; not SessionCatalog.createTable, which every format's create reaches
# on a lake whose catalog is a folder (Spark's in-memory catalog).
FIRST_CREATE = {
    "hudi": HeldPoint(
        "during_first_create",
        "a Hudi table created the first time: hoodie.properties written, no catalog entry yet",
        ("org.apache.spark.sql.hudi.command.CreateHoodieTableCommand$.createTableInCatalog",),
    ),
    "iceberg": HeldPoint(
        "during_first_create_iceberg",
        "an iceberg table created the first time: its first commit written, no catalog entry yet",
        ("lakehouse.catalog.LakeSessionCatalog.point",),
    ),
    "delta": HeldPoint(
        "during_first_create_delta",
        "a delta table created the first time: its first commit written, no catalog entry yet",
        ("org.apache.spark.sql.delta.commands.CreateDeltaTableCommand.updateCatalog",),
    ),
}


def in_flight(work: Work, armed: LakeState | None = None, running: str | None = None) -> list[str]:
    """What a lake shows in flight: every pending instant (marked when it was
    pending already when armed, i.e. left by an earlier kill), and the scratch
    folders of the `running` model (schema.name) written since armed."""
    state = lake_state(work)
    found = []
    for table, pending in sorted(state.pending.items()):
        for instant, (action, status) in sorted(pending.items()):
            old = armed is not None and instant in armed.pending.get(table, {})
            found.append(
                f"{table} {instant}.{action}.{status}"
                + (" (left by an earlier kill)" if old else "")
            )
    if armed is not None and running:
        model = running.split(".")[-1] + "__lakehouse_"
        for name, entries in sorted(state.scratch.items()):
            if name.split(".")[-1].startswith(model) and entries - armed.scratch.get(
                name, frozenset()
            ):
                found.append(f"scratch {name} written")
    return found


RUNNING = re.compile(r"\d+ of \d+ START (?:\S+ )*?(?:model|file|test) (\S+) ")


def running_node(output: str) -> str | None:
    """The node dbt started last, by its console lines."""
    started = RUNNING.findall(output)
    return started[-1] if started else None


class Child:
    """warehouse_batches.py on a work folder, in a process group of its own,
    with its output in a file of the work folder."""

    def __init__(
        self,
        work: Work,
        first: int,
        last: int,
        *options: str,
        tag: str,
        env: dict[str, str] | None = None,
    ) -> None:
        self.work, self.first, self.last = work, first, last
        self.log = work.root / f"child_{tag}.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, str(HELPER), str(work.root), str(first), str(last), *options],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
        self.started = time.monotonic()

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc) -> None:
        # Whatever went wrong in the parent (an error, Ctrl-C), no child outlives it.
        if self.process.poll() is None:
            self.kill()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def wait_for(
        self, condition: Callable[[], str | None], timeout: float, poll: float = 0.01
    ) -> str | None:
        """Polls `condition` until it returns what it saw; None if the child ended
        first. Raises TimeoutError (the child killed) after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            seen = condition()
            if seen:
                return seen
            if self.process.poll() is not None:
                return condition()  # a last look: the point may have come with the end
            if time.monotonic() > deadline:
                self.kill()
                raise TimeoutError(f"no kill point in {timeout} s")
            time.sleep(poll)

    def kill(self) -> None:
        """SIGKILL to the whole group: Python and its Spark JVM at once, as kill -9 of a job."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def finish(self, timeout: float = 1800) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.output().splitlines()[-lines:])

    def batches_done(self) -> list[int]:
        return [int(m.group(1)) for m in DONE.finditer(self.output())]

    def done_times(self) -> dict[int, float]:
        return {int(m.group(1)): float(m.group(2)) for m in DONE.finditer(self.output())}

    def ready_time(self) -> float | None:
        found = READY.search(self.output())
        return float(found.group(1)) if found else None


class ChainFailed(Exception):
    """A child failed, or a kill point was not reached."""


@dataclass
class Kill:
    label: str  # the kill point's name
    batch: int  # the batch the killed child was building
    after: float  # seconds from the child's start to the kill
    seen: str = ""  # what the kill point saw
    in_flight: list[str] = field(default_factory=list)
    running: str | None = None
    held: bool | None = None  # named points: the lake shows the kill at the point

    def describe(self) -> str:
        held = "" if self.held is None else (" at the point" if self.held else " PAST THE POINT")
        return (
            f"{self.label} in batch {self.batch} after {self.after:.1f} s{held}"
            + (f"; saw {self.seen}" if self.seen else "")
            + f"; running {self.running or '-'}; in flight: {', '.join(self.in_flight) or 'nothing'}"
        )


class Chain:
    """Builds batches first..last on one work folder with children that may be
    killed: each child starts at the first batch not done yet (a killed batch
    runs again, at once)."""

    def __init__(
        self,
        work: Work,
        last: int,
        options: list[str],
        first: int = 1,
        env: dict[str, str] | None = None,
    ) -> None:
        self.work, self.last, self.options, self.env = work, last, list(options), env
        self.next = first
        self.kills: list[Kill] = []
        self.children = 0

    def _start(self, first: int, *extra: str, env: dict[str, str] | None = None) -> Child:
        self.children += 1
        return Child(
            self.work,
            first,
            self.last,
            *self.options,
            *extra,
            # Two chains on one work folder (say, one per kill) log apart.
            tag=f"{self.children:02d}_from_{first}",
            env={**(self.env or os.environ), **(env or {})},
        )

    def _advance(self, child: Child) -> None:
        done = child.batches_done()
        if done:
            self.next = max(done) + 1

    def kill_held(self, point: HeldPoint, timeout: float = 1200) -> Kill:
        """A child killed once a thread of its JVM is held at `point`."""
        from tests import jvm_breakpoints  # (see prepare_work)

        if self.next > self.last:
            raise ChainFailed(f"no batch left to kill at {point.name}")
        with self._start(self.next, env=jvm_breakpoints.HELD_ENV) as child:
            armed = lake_state(self.work)
            try:
                with jvm_breakpoints.attach(child.log, child.process, list(point.methods)) as held:
                    held.wait(1, child.process, timeout=timeout)
                    seen = held.hit_lines()[0]
                    # Killed while the thread is held: jdb's leaving lets it run on.
                    child.kill()
            except AssertionError as exc:
                raise ChainFailed(f"{point.name}: {exc}\n{child.tail()}") from exc
            finally:
                child.kill()
        return self._record(child, point.name, armed, seen, True)  # held there by the JVM

    def kill_at(self, point: KillPoint, timeout: float = 1200, after: int | None = None) -> Kill:
        """A child killed at `point`; fails if it ends first. With `after`, the
        point is watched for once the child has built that batch: one child
        builds the batches before the killed one (the point may come in them
        too, say a table's first write)."""
        if self.next > self.last:
            raise ChainFailed(f"no batch left to kill at {point.name}")
        with self._start(self.next) as child:
            try:
                if after is not None and not child.wait_for(
                    lambda: "done" if after in child.batches_done() else None, timeout
                ):
                    raise ChainFailed(f"the run ended before batch {after}:\n{child.tail()}")
                # What the lake held when the watch began: the point is what
                # is new since (the next batch's first writes come seconds later).
                armed = lake_state(self.work)
                seen = child.wait_for(lambda: point.reached(self.work, armed), timeout)
            except TimeoutError as exc:
                raise ChainFailed(f"{point.name}: {exc}:\n{child.tail()}") from exc
            if child.process.poll() is not None:
                raise ChainFailed(
                    f"the run ended (exit {child.process.returncode}) before {point.name} "
                    f"({point.description}):\n{child.tail()}"
                )
            child.kill()
        seen = seen or ""
        return self._record(child, point.name, armed, seen, point.held(self.work, armed, seen))

    def _record(self, child: Child, name: str, armed: LakeState, seen: str, held: bool) -> Kill:
        """The kill of `child`, with what the lake had in flight; the chain
        goes on after the batches it completed."""
        running = running_node(child.output())
        kill = Kill(
            name,
            self.next + len(child.batches_done()),
            child.elapsed(),
            seen,
            in_flight(self.work, armed, running),
            running,
            held,
        )
        self._advance(child)
        self.kills.append(kill)
        return kill

    def finish(self, *extra: str) -> Child:
        """Runs the batches left (none: just the extra work, e.g. --digest) to the end."""
        with self._start(min(self.next, self.last), *extra) as child:
            if child.finish() != 0:
                raise ChainFailed(f"the run after the kills failed:\n{child.tail()}")
        self.next = self.last + 1
        return child


def compare_digests(
    expected: dict[str, tuple[int, int]], actual: dict[str, tuple[int, int]]
) -> list[str]:
    """The tables whose rows differ, as readable lines (empty: equal)."""
    problems = []
    for table in sorted(set(expected) | set(actual)):
        if table not in actual:
            problems.append(f"{table}: missing (reference {expected[table][0]} rows)")
        elif table not in expected:
            problems.append(f"{table}: not in the reference ({actual[table][0]} rows)")
        elif expected[table] != actual[table]:
            problems.append(
                f"{table}: {actual[table][0]} rows, hash {actual[table][1]}; "
                f"reference {expected[table][0]} rows, hash {expected[table][1]}"
            )
    return problems


def check_landed(work: Work, landed: dict[str, int]) -> list[str]:
    """Each landed file of the append feeds against its rows in ODS (lost: fewer; read twice: more)."""
    on_disk = landed_line_counts(work.landing)
    problems = []
    for path in sorted(set(on_disk) | set(landed)):
        lines, rows = on_disk.get(path), landed.get(path, 0)
        if lines is None:
            problems.append(f"{path}: {rows} rows in ODS, no such landed file")
        elif rows != lines:
            problems.append(
                f"{path}: {lines} lines landed, {rows} rows in ODS"
                + (" (read twice)" if rows > lines else " (lost)")
            )
    return problems


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("work", type=Path)
    parser.add_argument("first", type=int)
    parser.add_argument("last", type=int)
    parser.add_argument("--vars", default="{}", help="project vars (JSON) for every build")
    parser.add_argument(
        "--no-tests", action="store_true", help="leave the data tests out of each build"
    )
    parser.add_argument("--digest", action="store_true")
    parser.add_argument(
        "--digest-after",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="print the digest after batch N too (marked as its block)",
    )
    parser.add_argument(
        "--test-after", action="store_true", help="run every data test after the last batch"
    )
    args = parser.parse_args()
    work = Work(args.work)
    os.environ["ADLAKE_LANDING_DIR"] = work.landing_uri

    from dbt.cli.main import dbtRunner

    ready = []
    from dbt.adapters.lakehouse.writes.memory_staging import LOG_PREFIX

    def on_event(event) -> None:
        if not ready and event.info.name == "NodeStart":
            ready.append(True)
            print(f"spark ready in {time.monotonic() - STARTED:.1f} s", flush=True)
        if event.info.name == "SQLQuery" and event.data.sql.startswith(LOG_PREFIX):
            view = event.data.sql[len(LOG_PREFIX) :].split(" ", 1)[0]
            with (work.root / STAGED_LOG).open("a") as staged:
                staged.write(view + "\n")

    common = [
        "--project-dir",
        str(REPO),
        "--profiles-dir",
        str(work.profiles),
        "--target-path",
        str(work.root / "target"),
        "--log-path",
        str(work.root / "logs"),
        "--vars",
        args.vars,
    ]
    for batch in range(args.first, args.last + 1):
        # Into the bucket when the project reads its landing from one.
        bucket = work.landing_uri.startswith(BUCKET_SCHEMES)
        land_batch(work.generated, work.landing_uri if bucket else work.landing, batch)
        command = [
            "build",
            *common,
            # The models' unit tests run once, in test_warehouse_build; a
            # batch's build is about the data.
            "--exclude-resource-type",
            "unit_test",
        ]
        if args.no_tests:
            command += ["--exclude-resource-type", "test"]
        result = dbtRunner(callbacks=[on_event]).invoke(command)
        if not result.success:
            print(f"batch {batch} failed: {result.exception}", flush=True)
            sys.exit(1)
        print(f"batch {batch} done in {time.monotonic() - STARTED:.1f} s", flush=True)
        if batch in args.digest_after:
            print(f"DIGEST OF BATCH {batch}", flush=True)
            print_digest(work)
            print(f"END OF BATCH {batch}", flush=True)
    if args.test_after:
        result = dbtRunner().invoke(["test", *common, "--exclude-resource-type", "unit_test"])
        passed = [r for r in result.result or [] if str(r.status) == "pass"]
        print(f"data tests: {len(passed)} passed of {len(result.result or [])}", flush=True)
        if not result.success:
            print(f"the data tests failed: {result.exception}", flush=True)
            sys.exit(1)
    if args.digest:
        print_digest(work)
    print(CLOSING, flush=True)


if __name__ == "__main__":
    main()
