"""The warehouse's `dbt build` killed with SIGKILL part-way ends, after the next
runs, with exactly the data of a build that was never interrupted.

A child process (warehouse_batches.py) builds this repository's project batch
by batch on generated data, with a lake of its own, its tables and its
landing folder in a bucket of the project's S3 server (s3a://: its
warehouse_dir, and the landing folder whose objects the project lists and
reads); the test kills its whole process group (Python and its Spark JVM, as
kill -9 of a job does) at a point read off the bucket's objects (files of
the server's own folder), then starts the next run at once, at the batch that
was killed. One chain of runs is killed at each named point below in turn,
then finishes and runs every data test; a reference child builds the same
batches without interruption, at the same time, on the local disk (one per
test run, which test_table_formats.py compares with too: hudi_reference.py):
the killed build on object storage must end equal to it, row by row, and with
the generator's totals (spend in ADS, billable events in DWD). Both print
a digest of every table of every layer (ref, ods, dwd, dws, ads) and the rows
each landed file gave ODS, which the tests compare.

Named points, in the order the chain meets them. dwd_billing_events compacts
after every delta commit and keeps one commit's file versions here (--vars),
so that a few batches compact and clean: within a write Hudi commits, cleans,
then compacts, so its first clean comes in batch 3 (of what batch 2's
compaction replaced), and the compaction kill must come after it (a compaction
left pending keeps its file groups from being cleaned).

- during_ods_commit (batch 1): a commit of ods_billing_events in flight;
- before_dwd_commit (batch 1): DWD staged its batch, no commit begun;
- during_dwd_commit (batch 1): a delta commit of dwd_billing_events in flight;
- between_layers (the same batch): DWD's write done, DWS begun reading it, no
  DWS commit;
- during_first_create (the same batch): the next table created the first
  time (a DWS or ADS table) held where Hudi has written its folder and the
  catalog is not yet told (a point of the code, not of the files: the
  child's JVM is held there, warehouse_batches.HeldPoint), then killed: the
  folder the next run must clear;
- during_ads_commit (the same batch): a commit of ads_spend_by_customer in flight;
- during_clean (batch 3): a clean of dwd_billing_events planned or in flight;
- during_compaction (batch 4): an inline compaction of dwd_billing_events
  planned or in flight. The rerun of batch 4 has nothing new for DWD, so the
  plan is still pending when batch 5 writes DWD: that write runs it first (a
  delta commit on the plan's file slices, with the plan completing after it,
  made dws_spend_hourly's CDC read of the range fail on every run after).

The data tests are left out of these builds (`--no-tests`): they read and
check, and would take most of the time; they run once on the completed
chain, whose tables equal the reference's. Kills at random moments are the
loop's, `python -m tests.warehouse.kill_loop --trials 20` (docs/reliability.md,
"Kills at random moments"): each trial one more run of the warehouse, too
long for CI.
"""

from __future__ import annotations

import re

import pytest

from dbt.adapters.lakehouse.formats.hudi.change_ranges import written_on_pending_compactions
from tests.dbt_harness import completed_instants, hudi_jar
from tests.s3_store import running_store
from tests.warehouse.hudi_reference import BATCHES, OPTIONS, SCHEMA
from tests.warehouse.warehouse_batches import (
    FIRST_CREATE,
    POINTS,
    Chain,
    ChainFailed,
    check_landed,
    compare_digests,
    parse_digest,
    parse_totals,
    prepare_work,
    timeline,
)

NAMED = [
    "during_ods_commit",
    "before_dwd_commit",
    "during_dwd_commit",
    "between_layers",
    "during_first_create",
    "during_ads_commit",
    "during_clean",
    "during_compaction",
]
LAYERS = ("ref", "ods", "dwd", "dws", "ads")


@pytest.fixture(scope="module")
def crash_root(tmp_path_factory):
    return tmp_path_factory.mktemp("warehouse_crash")


@pytest.fixture(scope="module")
def truth(hudi_reference) -> dict:
    """The generator's totals after the last batch."""
    return hudi_reference.truth(BATCHES)


@pytest.fixture(scope="module")
def store(crash_root):
    with running_store(crash_root / "s3", "crash-killed", "crash-access", "crash-secret") as s:
        yield s


@pytest.fixture(scope="module")
def killed_chain(crash_root, store, hudi_reference):
    """The chain of runs in the bucket: killed at each named point in turn,
    then run to the end, then every data test once (the reference builds
    meanwhile)."""
    work = prepare_work(
        crash_root / "killed",
        SCHEMA,
        hudi_reference.generated,
        hudi_jar(),
        # Each batch lands as objects of the bucket (files of the server's
        # own folder), which the project lists and reads through s3a://;
        # the kill points read the tables' objects there.
        landing=(store.data / "landing", f"s3a://{store.bucket}/landing"),
        warehouse=(store.data / "warehouse", f"s3a://{store.bucket}/warehouse"),
        spark_conf=store.spark_conf(),
    )
    chain = Chain(work, BATCHES, OPTIONS, env={**store.run_env(), **store.landing_env()})
    try:
        for name in NAMED:
            if name == FIRST_CREATE["hudi"].name:
                chain.kill_held(FIRST_CREATE["hudi"])
            else:
                chain.kill_at(POINTS[name])
        final = chain.finish("--test-after", "--digest")
    except ChainFailed as exc:
        pytest.fail(f"{exc}\nkills so far:\n" + "\n".join(k.describe() for k in chain.kills))
    for kill in chain.kills:
        print(kill.describe())
    return chain, final


@pytest.fixture(scope="module")
def reference_output(hudi_reference) -> str:
    return hudi_reference.output()


def test_each_named_kill_landed_at_its_point(killed_chain):
    chain, _ = killed_chain
    assert [k.label for k in chain.kills] == NAMED
    missed = [k.describe() for k in chain.kills if not k.held]
    assert not missed, "killed past the point:\n" + "\n".join(missed)


def test_the_killed_build_in_a_bucket_ends_passing_every_data_test(killed_chain, store):
    """The chain built the warehouse batch by batch on S3, through the kills:
    once complete, its data tests pass, and its tables are objects in the
    bucket, not local files."""
    chain, final = killed_chain
    output = final.output()
    tests = re.search(r"^data tests: (\d+) passed of (\d+)$", output, re.M)
    assert tests is not None and tests.group(1) == tests.group(2), output[-3000:]
    assert int(tests.group(2)) > 20
    tables = store.data / "warehouse" / f"{SCHEMA}_ads.db" / "ads_spend_by_customer"
    assert chain.work.table_dir("ads", "ads_spend_by_customer") == tables
    assert completed_instants(tables), "no ADS commit in the bucket"
    local = chain.work.lake / "warehouse"
    assert not local.exists() or not any(local.rglob("*.parquet")), "table files on the local disk"


def test_both_builds_end_with_the_generators_totals(killed_chain, reference_output, truth):
    _, final = killed_chain
    for build, output in (("killed, in the bucket", final.output()), ("local", reference_output)):
        found = parse_totals(output)
        assert found is not None, output[-3000:]
        assert set(found) == {"cost_micros", "events"}
        assert found == {key: truth[key] for key in found}, build


def test_killed_runs_end_with_the_data_of_an_uninterrupted_run_on_every_layer(
    killed_chain, reference_output
):
    chain, final = killed_chain
    expected, _ = parse_digest(reference_output)
    actual, _ = parse_digest(final.output())
    assert {name.split(".")[0] for name in expected} == {f"{SCHEMA}_{layer}" for layer in LAYERS}
    kills = "\n".join(k.describe() for k in chain.kills)
    problems = compare_digests(expected, actual)
    assert not problems, (
        "tables that differ from the reference:\n" + "\n".join(problems) + f"\nkills:\n{kills}"
    )


def test_no_landed_file_lost_or_read_twice(killed_chain, reference_output, hudi_reference):
    """Each landed file's lines are its rows in ODS (ods_billing_events_raw,
    ods_account_changes): none lost, none read twice."""
    chain, final = killed_chain
    for work, output in (
        (chain.work, final.output()),
        (hudi_reference.work, reference_output),
    ):
        _, landed = parse_digest(output)
        batches = {path.split("/")[1] for path in landed}
        assert batches == {f"batch={b:06d}" for b in range(1, BATCHES + 1)}, landed
        problems = check_landed(work, landed)
        assert not problems, f"{work.root.name}:\n" + "\n".join(problems)


def test_every_killed_write_was_rolled_back(killed_chain):
    """No commit or delta commit is left pending on any table: each killed write
    was rolled back by the next write of its table (a compaction or clean the
    last kill left waits for the table's next write)."""
    chain, _ = killed_chain
    warehouse = chain.work.warehouse
    left = []
    for table_dir in sorted(warehouse.glob(f"{SCHEMA}_*.db/*/")):
        _, pending = timeline(table_dir)
        left += [
            f"{table_dir.parent.name}/{table_dir.name} {i}.{a}.{s}"
            for i, (a, s) in sorted(pending.items())
            if a not in ("compaction", "clean")
        ]
    assert not left, "writes left pending:\n" + "\n".join(left)


def test_the_compaction_left_pending_ran_before_the_next_write_of_its_table(killed_chain):
    """The last kill left a compaction of dwd_billing_events pending; batch 5's
    write of the table ran it first, so no delta commit was written on its
    file slices (which would have made dws_spend_hourly's change read fail)."""
    chain, _ = killed_chain
    seen = chain.kills[-1].seen
    assert seen.startswith("dwd.dwd_billing_events ") and ".compaction." in seen, seen
    killed = seen.split(" ")[-1].split(".")[0]
    instants = completed_instants(chain.work.table_dir("dwd", "dwd_billing_events"))
    assert (killed, "commit") in {(i, action) for i, _, action in instants}, instants
    assert written_on_pending_compactions(instants) == (), instants


def test_the_table_whose_first_create_was_killed_is_created_by_the_next_run(killed_chain):
    """The kill left a Hudi folder no catalog entry names (which failed every
    later run): the next run said so, removed it, and built the table."""
    chain, _ = killed_chain
    [kill] = [k for k in chain.kills if k.label == FIRST_CREATE["hudi"].name]
    assert "createTableInCatalog" in kill.seen, kill.describe()
    assert kill.running, kill.describe()
    after = "\n".join(log.read_text() for log in sorted(chain.work.root.glob("child_*.log")))
    assert f"{kill.running} is not in the catalog" in after, kill.describe()
    assert "no completed instant" in after and "Removed it" in after
