"""The billing data generator (tools/generate_billing.py), checked from its files.

Each test re-reads what the generator wrote instead of trusting it; truth.json is
compared against a recomputation from the files done here, written separately
and as plainly as possible (re-read everything, dedup with dicts). No Spark.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "generate_billing.py"

START = datetime(2026, 11, 20)
WINDOW = timedelta(minutes=480)
# 12,003 lines over 5 batches: 2,400 each and 2,403 in the last (remainder).
PARAMS = {"seed": 11, "events": 12_003, "batches": 5, "accounts": 120, "start": START, "batch_minutes": 480}

EVENT_KEYS = {
    "event_id", "event_version", "event_type", "event_time", "account_id",
    "campaign_id", "ad_id", "media_id", "billing_type", "cost_micros",
}
REASONS = ("broken_json", "missing_key", "negative_cost", "unknown_account")
# (event_type, billing_type) pairs that are charged for; everything else costs 0.
BILLED = {("impression", "CPM"), ("click", "CPC"), ("conversion", "oCPM")}


def load_generator():
    """tools/ is no package: load the file as a module."""
    spec = importlib.util.spec_from_file_location("generate_billing", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


generator = load_generator()


# --- Reading the landing folder back ---------------------------------------------------


@dataclass
class Landing:
    out: Path
    returned_truth: dict
    # batch -> [(file name, line text)], files in name order, lines in file order
    event_lines: dict[int, list[tuple[str, str]]]
    # batch -> CDC rows in file order
    changes: dict[int, list[dict]]
    media: dict[int, dict]
    campaigns: dict[int, dict]
    ads: dict[int, dict]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def batch_number(folder: Path) -> int:
    return int(folder.name.removeprefix("batch="))


def read_landing(out: Path, returned_truth: dict) -> Landing:
    event_lines = {}
    for folder in sorted((out / "billing_events").iterdir()):
        lines = []
        for part in sorted(folder.iterdir()):
            lines += [(part.name, text) for text in part.read_text(encoding="utf-8").split("\n")[:-1]]
        event_lines[batch_number(folder)] = lines
    changes = {
        batch_number(folder): read_jsonl(folder / "part-0000.jsonl")
        for folder in sorted((out / "account_changes").iterdir())
    }
    dims = out / "dimensions"
    return Landing(
        out=out,
        returned_truth=returned_truth,
        event_lines=event_lines,
        changes=changes,
        media={row["media_id"]: row for row in read_jsonl(dims / "media.jsonl")},
        campaigns={row["campaign_id"]: row for row in read_jsonl(dims / "campaigns.jsonl")},
        ads={row["ad_id"]: row for row in read_jsonl(dims / "ads.jsonl")},
    )


def classify(text: str, known_accounts: set[int]) -> tuple[str, dict | None]:
    """("valid", row) or (malformed reason, row or None), by the truth rules."""
    try:
        row = json.loads(text)
    except json.JSONDecodeError:
        return "broken_json", None
    if not EVENT_KEYS <= set(row):
        return "missing_key", row
    cost = row["cost_micros"]
    if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
        return "negative_cost", row
    if row["account_id"] not in known_accounts:
        return "unknown_account", row
    return "valid", row


def inserted_accounts(landing: Landing, through_batch: int) -> set[int]:
    return {
        row["account_id"]
        for batch, rows in landing.changes.items() if batch <= through_batch
        for row in rows if row["op"] == "I"
    }


def valid_rows(landing: Landing, batch: int) -> list[dict]:
    known = inserted_accounts(landing, batch)
    rows = []
    for _, text in landing.event_lines[batch]:
        kind, row = classify(text, known)
        if kind == "valid":
            rows.append(row)
    return rows


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")


def window_start(batch: int) -> datetime:
    return START + WINDOW * (batch - 1)


@pytest.fixture(scope="module")
def landing(tmp_path_factory) -> Landing:
    out = tmp_path_factory.mktemp("landing")
    truth = generator.generate(out, **PARAMS)
    return read_landing(out, truth)


# --- truth.json, recomputed from the files ---------------------------------------------


def recompute_truth(landing: Landing) -> list[dict]:
    """The truth figures per batch, straight from the files."""
    winners: dict[str, dict] = {}  # event_id -> row of the highest valid version
    latest_change: dict[int, dict] = {}  # account_id -> CDC row with the highest change_seq
    inserted: set[int] = set()
    malformed = Counter()
    valid_lines = change_lines = 0
    figures = []
    for batch in sorted(landing.event_lines):
        for row in landing.changes[batch]:
            change_lines += 1
            if row["op"] == "I":
                inserted.add(row["account_id"])
            current = latest_change.get(row["account_id"])
            if current is None or row["change_seq"] > current["change_seq"]:
                latest_change[row["account_id"]] = row
        for _, text in landing.event_lines[batch]:
            kind, row = classify(text, inserted)
            if kind != "valid":
                malformed[kind] += 1
                continue
            valid_lines += 1
            winner = winners.get(row["event_id"])
            if winner is None or row["event_version"] > winner["event_version"]:
                winners[row["event_id"]] = row

        alive = {account: row for account, row in latest_change.items() if row["op"] != "D"}
        by_industry = Counter()
        for row in winners.values():
            account = alive.get(row["account_id"])
            by_industry[account["industry"] if account else "unknown"] += row["cost_micros"]
        types = Counter(row["event_type"] for row in winners.values())
        figures.append({
            "batch": batch,
            "landed_event_lines": valid_lines + sum(malformed.values()),
            "malformed": {reason: malformed[reason] for reason in REASONS},
            "valid_event_lines": valid_lines,
            "events": len(winners),
            "cost_micros": sum(row["cost_micros"] for row in winners.values()),
            "impressions": types["impression"],
            "clicks": types["click"],
            "conversions": types["conversion"],
            "cost_by_industry": dict(sorted(by_industry.items())),
            "account_change_lines": change_lines,
            "accounts_current": len(alive),
        })
    return figures


def test_truth_matches_an_independent_recomputation(landing):
    truth_file = json.loads((landing.out / "truth.json").read_text(encoding="utf-8"))
    assert truth_file == landing.returned_truth
    recomputed = recompute_truth(landing)
    for expected, actual in zip(recomputed, truth_file["batches"], strict=True):
        assert actual == expected, f"batch {expected['batch']}"
    params = dict(PARAMS, start=START.isoformat())
    assert truth_file["params"] == params


def test_truth_is_not_trivial(landing):
    """The recomputation only means something if the mess changes the figures."""
    last = landing.returned_truth["batches"][-1]
    assert last["valid_event_lines"] > last["events"]  # duplicates and versions collapsed
    assert all(last["malformed"][reason] > 0 for reason in REASONS)
    assert "unknown" in last["cost_by_industry"]  # a deleted account had spent
    assert last["accounts_current"] < PARAMS["accounts"]


# --- Determinism ------------------------------------------------------------------------


def file_bytes(out: Path) -> dict[str, bytes]:
    return {str(path.relative_to(out)): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    small = dict(PARAMS, events=5_000, batches=4, accounts=60)
    generator.generate(tmp_path / "a", **small)
    generator.generate(tmp_path / "b", **small)
    generator.generate(tmp_path / "c", **dict(small, seed=small["seed"] + 1))
    first, second, other = (file_bytes(tmp_path / name) for name in "abc")
    assert first == second
    assert set(other) == set(first)
    changed = [name for name in first if other[name] != first[name]]
    assert all(name in changed for name in first if name.startswith("billing_events"))


# --- Sizes and layout --------------------------------------------------------------------


def test_line_counts_and_files_per_batch(landing):
    batches = PARAMS["batches"]
    expected = [2_400] * (batches - 1) + [2_403]
    assert [len(landing.event_lines[batch]) for batch in range(1, batches + 1)] == expected
    assert sum(expected) == PARAMS["events"]
    for batch in range(1, batches + 1):
        name = f"batch={batch:06d}"
        events = sorted(path.name for path in (landing.out / "billing_events" / name).iterdir())
        assert events == ["part-0000.jsonl", "part-0001.jsonl"]
        assert (landing.out / "account_changes" / name / "part-0000.jsonl").is_file()
    assert sorted(landing.event_lines) == sorted(landing.changes) == list(range(1, batches + 1))


def test_every_file_is_json_lines_with_newline_endings(landing):
    for path in landing.out.rglob("*.json*"):
        data = path.read_bytes()
        assert data.endswith(b"\n") or data == b"", path
        assert b"\r" not in data, path


# --- The mess in every batch --------------------------------------------------------------


def test_every_batch_mixes_in_every_kind_of_mess(landing):
    earlier_versions: dict[str, dict[int, int]] = {}  # event_id -> {version: cost}, earlier batches
    seen_lines: set[str] = set()
    for batch in sorted(landing.event_lines):
        known = inserted_accounts(landing, batch)
        reasons, rows, duplicates = Counter(), [], 0
        for _, text in landing.event_lines[batch]:
            kind, row = classify(text, known)
            if kind != "valid":
                reasons[kind] += 1
                continue
            rows.append(row)
            duplicates += text in seen_lines
            seen_lines.add(text)

        versions = {event_id: dict(costs) for event_id, costs in earlier_versions.items()}
        for row in rows:
            versions.setdefault(row["event_id"], {})[row["event_version"]] = row["cost_micros"]
        corrections = [
            row for row in rows
            if row["event_version"] > 1
            and row["event_version"] - 1 in versions[row["event_id"]]
            and versions[row["event_id"]][row["event_version"] - 1] != row["cost_micros"]
        ]
        stale = [
            row for row in rows
            if row["event_id"] in earlier_versions and max(earlier_versions[row["event_id"]]) > row["event_version"]
        ]
        new_rows = [row for row in rows if row["event_id"] not in earlier_versions]
        late = [row for row in new_rows if parse_time(row["event_time"]) <= window_start(batch) - timedelta(days=1)]
        previous_window = [
            row for row in new_rows
            if window_start(batch) - WINDOW <= parse_time(row["event_time"]) < window_start(batch)
        ]

        assert duplicates > 0, f"batch {batch}: no exact duplicate"
        assert corrections, f"batch {batch}: no correction"
        assert batch == 1 or stale, f"batch {batch}: no stale version"
        assert late, f"batch {batch}: no event a day late"
        assert previous_window, f"batch {batch}: no out-of-order event"
        assert all(reasons[reason] > 0 for reason in REASONS), f"batch {batch}: {reasons}"
        earlier_versions = versions


def test_new_events_fall_in_their_window_or_at_most_72_hours_before(landing):
    seen: set[str] = set()
    for batch in sorted(landing.event_lines):
        rows = valid_rows(landing, batch)
        window_end = window_start(batch) + WINDOW
        for row in rows:
            moment = parse_time(row["event_time"])
            assert moment < window_end  # nothing from the future, copies included
            if row["event_id"] not in seen:
                assert moment >= window_start(batch) - timedelta(hours=72), row
        seen |= {row["event_id"] for row in rows}


def test_event_files_are_not_in_time_order(landing):
    for batch, lines in landing.event_lines.items():
        for part in ("part-0000.jsonl", "part-0001.jsonl"):
            times = []
            for name, text in lines:
                kind, row = classify(text, inserted_accounts(landing, batch))
                if name == part and kind == "valid":
                    times.append(row["event_time"])
            assert times != sorted(times), f"batch {batch} {part}"


def test_event_type_mix_is_roughly_85_12_3(landing):
    rows = [row for batch in landing.event_lines for row in valid_rows(landing, batch)]
    shares = Counter(row["event_type"] for row in rows)
    assert abs(shares["impression"] / len(rows) - 0.85) < 0.03
    assert abs(shares["click"] / len(rows) - 0.12) < 0.03
    assert abs(shares["conversion"] / len(rows) - 0.03) < 0.015


# --- Valid lines are consistent ----------------------------------------------------------


def test_valid_lines_follow_ad_campaign_account_and_pricing(landing):
    for batch in landing.event_lines:
        for row in valid_rows(landing, batch):
            ad = landing.ads[row["ad_id"]]
            assert ad["campaign_id"] == row["campaign_id"]
            assert landing.campaigns[row["campaign_id"]]["account_id"] == row["account_id"]
            assert ad["billing_type"] == row["billing_type"]
            assert row["media_id"] in landing.media
            assert row["event_type"] in {"impression", "click", "conversion"}
            assert re.fullmatch(r"e[0-9a-f]{12}", row["event_id"])
            assert row["cost_micros"] == 0 or (row["event_type"], row["billing_type"]) in BILLED


def test_malformed_lines_never_share_an_id_with_valid_lines(landing):
    valid_ids, malformed_ids = set(), set()
    for batch in landing.event_lines:
        known = inserted_accounts(landing, batch)
        for _, text in landing.event_lines[batch]:
            kind, row = classify(text, known)
            if kind == "valid":
                valid_ids.add(row["event_id"])
            elif row is not None and "event_id" in row:
                malformed_ids.add(row["event_id"])
            else:  # a cut line still shows its id when the cut came after it
                malformed_ids |= set(re.findall(r'"event_id":"([^"]+)"', text))
    assert malformed_ids  # the check below must not be vacuous
    assert not malformed_ids & valid_ids


# --- Account changes -----------------------------------------------------------------------


def test_batch_1_inserts_every_account(landing):
    rows = landing.changes[1]
    assert {row["op"] for row in rows} == {"I"}
    first, count = 1001, PARAMS["accounts"]
    assert {row["account_id"] for row in rows} == set(range(first, first + count))
    direct = {row["account_id"] for row in rows if row["agency_id"] is None}
    assert all(row["agency_name"] == "Direct" for row in rows if row["agency_id"] is None)
    assert 0.1 < len(direct) / count < 0.3


def test_changes_are_sequenced_duplicated_exactly_and_shuffled(landing):
    by_seq: dict[int, dict] = {}
    shuffled = False
    for batch, rows in landing.changes.items():
        for row in rows:
            assert by_seq.setdefault(row["change_seq"], row) == row  # a repeat is an exact copy
            moment = datetime.strptime(row["change_time"], "%Y-%m-%d %H:%M:%S")
            assert window_start(batch) <= moment < window_start(batch) + WINDOW
        seqs = [row["change_seq"] for row in rows]
        shuffled |= seqs != sorted(seqs)
        assert len(seqs) > len(set(seqs)), f"batch {batch}: no repeated row"
    assert sorted(by_seq) == list(range(1, len(by_seq) + 1))
    assert shuffled


def assert_nothing_about_deleted_accounts(landing: Landing) -> None:
    """From its delete batch on, an account gets no change and no event line of any kind."""
    deleted_in = {
        row["account_id"]: batch for batch, rows in landing.changes.items() for row in rows if row["op"] == "D"
    }
    assert deleted_in
    for batch in landing.changes:
        for row in landing.changes[batch]:
            if row["account_id"] in deleted_in and batch > deleted_in[row["account_id"]]:
                pytest.fail(f"change to account {row['account_id']} after its delete")
        for _, text in landing.event_lines[batch]:
            try:
                account = json.loads(text).get("account_id")
            except json.JSONDecodeError:
                continue
            assert account not in deleted_in or batch < deleted_in[account], (batch, text)


def test_updates_and_deletes_and_no_events_for_deleted_accounts(landing):
    later_ops = Counter(row["op"] for batch, rows in landing.changes.items() if batch > 1 for row in rows)
    assert later_ops["U"] > 0 and later_ops["D"] > 0
    assert_nothing_about_deleted_accounts(landing)


def test_no_copies_of_a_deleted_accounts_events_either(tmp_path):
    """With 3 accounts a deleted one holds about a third of the recent events
    and replaced versions, so duplicates, corrections and stale versions of its
    events would show up here if they were not dropped at its delete."""
    truth = generator.generate(tmp_path, **dict(PARAMS, events=6_000, batches=4, accounts=3))
    assert_nothing_about_deleted_accounts(read_landing(tmp_path, truth))


def test_a_delete_carries_the_last_known_attributes(landing):
    latest: dict[int, dict] = {}
    for batch in sorted(landing.changes):
        for row in sorted(landing.changes[batch], key=lambda row: row["change_seq"]):
            if row["op"] == "D":
                before = {key: value for key, value in latest[row["account_id"]].items()
                          if key not in ("op", "change_time", "change_seq")}
                assert {key: row[key] for key in before} == before
            latest[row["account_id"]] = row


# --- The command line -----------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=60)


def test_cli_refuses_a_non_empty_out_unless_forced(tmp_path):
    out = tmp_path / "landing"
    out.mkdir()
    (out / "notes.txt").write_text("not the generator's\n")

    refused = run_cli("--out", str(out), "--events", "2000", "--batches", "2")
    assert refused.returncode != 0
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "not empty" in refused.stderr and "--force" in refused.stderr
    assert sorted(path.name for path in out.iterdir()) == ["notes.txt"]

    forced = run_cli("--out", str(out), "--events", "2000", "--batches", "2", "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(forced.stdout.strip().splitlines()) == 1
    assert forced.stdout.startswith("wrote 2000 event lines in 2 batches")
    assert (out / "billing_events" / "batch=000002").is_dir()

    # Forcing again replaces the previous output (no leftover batch 2) and
    # leaves files that are not the generator's alone.
    again = run_cli("--out", str(out), "--events", "1000", "--batches", "1", "--force")
    assert again.returncode == 0, again.stderr
    assert not (out / "billing_events" / "batch=000002").exists()
    assert (out / "notes.txt").read_text() == "not the generator's\n"
