"""The billing data generator (adlake.generator), checked from its files.

Each test re-reads what the generator wrote instead of trusting it; truth.json is
compared against a recomputation from the files done here, written separately
and as plainly as possible (re-read everything as bytes, classify each line by
the rules of the generator's docstring, dedup with dicts). No Spark.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest

import adlake.generator as generator

START = datetime(2026, 11, 20)
WINDOW = timedelta(minutes=480)
# 12,003 lines over 5 batches: 2,400 each and 2,403 in the last (remainder).
PARAMS = {
    "seed": 11,
    "events": 12_003,
    "batches": 5,
    "accounts": 120,
    "late_accounts": 2,
    "start": START,
    "batch_minutes": 480,
}

TEXT_KEYS = ("event_id", "event_type", "event_time", "billing_type")
NUMBER_KEYS = ("event_version", "account_id", "campaign_id", "ad_id", "media_id", "cost_micros")
EVENT_KEYS = set(TEXT_KEYS + NUMBER_KEYS)
# The reasons a line is quarantined for, in rule order (truth.json's `malformed`).
REASONS = (
    "broken_json",
    "bad_encoding",
    "missing_key",
    "wrong_type",
    "bad_value",
    "negative_cost",
    "cost_out_of_range",
    "time_out_of_range",
    "deleted_account",
)
# The reasons the line alone decides (rules 1-8).
LINE_REASONS = REASONS[:-1]
# (event_type, billing_type) pairs that are charged for; everything else costs 0.
BILLED = {("impression", "CPM"), ("click", "CPC"), ("conversion", "oCPM")}
UNKNOWN_ACCOUNT_BASE = 999_000
BOM = b"\xef\xbb\xbf"


# --- Reading the landing folder back ---------------------------------------------------


@dataclass
class Landing:
    out: Path
    returned_truth: dict
    # batch -> [(file name, line bytes)], files in name order, lines in file order
    event_lines: dict[int, list[tuple[str, bytes]]]
    # batch -> CDC rows in file order
    changes: dict[int, list[dict]]
    media: dict[int, dict]
    campaigns: dict[int, dict]
    ads: dict[int, dict]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def batch_number(folder: Path) -> int:
    return int(folder.name.removeprefix("batch="))


def read_event_file(path: Path) -> list[bytes]:
    """Bytes, not text: a bad_encoding line is not valid UTF-8. A byte-order
    mark at the start of the file is no part of its first line."""
    data = path.read_bytes().removeprefix(BOM)
    return data.split(b"\n")[:-1]


def read_landing(out: Path, returned_truth: dict) -> Landing:
    event_lines = {}
    for folder in sorted((out / "billing_events").iterdir()):
        event_lines[batch_number(folder)] = [
            (part.name, line) for part in sorted(folder.iterdir()) for line in read_event_file(part)
        ]
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


def window_start(batch: int) -> datetime:
    return START + WINDOW * (batch - 1)


def ingested_at(batch: int) -> datetime:
    """The truth takes a batch to be ingested when its window ends."""
    return window_start(batch) + WINDOW


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")


def read_time(value) -> datetime | None:
    """An event_time as rule 5 reads it, or None if it is no timestamp."""
    for pattern in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(value, pattern)
        except (TypeError, ValueError):
            pass
    return None


# --- Classifying a line, rule by rule ------------------------------------------------------


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_readable(row: dict) -> bool:
    """Rule 5: no null, known event and billing types, a timestamp, whole numbers."""
    return (
        all(row[key] is not None for key in EVENT_KEYS)
        and row["event_type"] in ("impression", "click", "conversion")
        and row["billing_type"] in ("CPC", "CPM", "oCPM")
        and read_time(row["event_time"]) is not None
        and all(isinstance(row[key], int) for key in NUMBER_KEYS)
    )


def line_reason(raw: bytes, batch: int) -> tuple[str | None, dict | None]:
    """(reason, row) by rules 1-8, which look at the line alone; reason None if it passes them."""
    text = raw.decode("utf-8", errors="replace")  # an invalid byte reads as U+FFFD
    try:
        row = json.loads(text)
    except ValueError:
        return "broken_json", None
    if not isinstance(row, dict):
        return "broken_json", None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "bad_encoding", row
    if not EVENT_KEYS <= set(row):
        return "missing_key", row
    if any(row[key] is not None and not isinstance(row[key], str) for key in TEXT_KEYS) or any(
        row[key] is not None and not is_number(row[key]) for key in NUMBER_KEYS
    ):
        return "wrong_type", row
    if not is_readable(row):
        return "bad_value", row
    if row["cost_micros"] < 0:
        return "negative_cost", row
    if row["cost_micros"] > 10**12:
        return "cost_out_of_range", row
    moment = read_time(row["event_time"])
    if moment < datetime(2000, 1, 1) or moment > ingested_at(batch) + timedelta(days=1):
        return "time_out_of_range", row
    return None, row


@dataclass
class AccountFeed:
    """The account changes landed so far, as rules 9 and 10 see them."""

    inserted: set[int] = field(default_factory=set)
    latest: dict[int, dict] = field(
        default_factory=dict
    )  # account_id -> row with the highest change_seq

    def land(self, rows: list[dict]) -> None:
        for row in rows:
            if row["op"] == "I":
                self.inserted.add(row["account_id"])
            current = self.latest.get(row["account_id"])
            if current is None or row["change_seq"] > current["change_seq"]:
                self.latest[row["account_id"]] = row

    def verdict(self, row: dict) -> str:
        """ "held" (rule 9), "deleted_account" (rule 10) or "valid"."""
        if row["account_id"] not in self.inserted:
            return "held"
        change = self.latest[row["account_id"]]
        deleted_at = datetime.strptime(change["change_time"], "%Y-%m-%d %H:%M:%S")
        if change["op"] == "D" and deleted_at <= parse_time(row["event_time"]):
            return "deleted_account"
        return "valid"

    def alive(self) -> dict[int, dict]:
        return {account: row for account, row in self.latest.items() if row["op"] != "D"}


@dataclass
class Landed:
    """One line as it landed: its outcome is a quarantine reason, "valid" or "held"."""

    batch: int
    file: str
    raw: bytes
    outcome: str
    row: dict | None


@dataclass
class BatchReplay:
    batch: int
    lines: list[Landed]  # the lines landing in this batch
    released: list[Landed]  # held lines of earlier batches that are valid from this batch on
    requarantined: list[Landed]  # held lines of earlier batches quarantined in this batch
    held: list[Landed]  # every line held after this batch
    alive: dict[int, dict]  # account_id -> latest landed change, accounts not deleted


def replay(landing: Landing) -> list[BatchReplay]:
    """Land the batches one by one: account changes first, then the held lines
    are judged again, then the batch's own lines."""
    feed, held, batches = AccountFeed(), [], []
    for batch in sorted(landing.event_lines):
        feed.land(landing.changes[batch])
        released, requarantined, still_held = [], [], []
        for line in held:
            outcome = feed.verdict(line.row)
            {"valid": released, "held": still_held, "deleted_account": requarantined}[
                outcome
            ].append(line)
        lines = []
        for name, raw in landing.event_lines[batch]:
            reason, row = line_reason(raw, batch)
            line = Landed(batch, name, raw, reason or feed.verdict(row), row)
            lines.append(line)
            if line.outcome == "held":
                still_held.append(line)
        held = still_held
        batches.append(BatchReplay(batch, lines, released, requarantined, list(held), feed.alive()))
    return batches


def valid_rows(replayed: BatchReplay) -> list[dict]:
    """The rows found valid in this batch: its own valid lines and the released ones."""
    return [line.row for line in replayed.lines if line.outcome == "valid"] + [
        line.row for line in replayed.released
    ]


@pytest.fixture(scope="module")
def landing(tmp_path_factory) -> Landing:
    out = tmp_path_factory.mktemp("landing")
    truth = generator.generate(out, **PARAMS)
    return read_landing(out, truth)


@pytest.fixture(scope="module")
def replayed(landing) -> list[BatchReplay]:
    return replay(landing)


# --- truth.json, recomputed from the files ---------------------------------------------


def recompute_truth(landing: Landing) -> list[dict]:
    """The truth figures per batch, straight from the files."""
    winners: dict[str, dict] = {}  # event_id -> row of the highest valid version
    quarantined = Counter()
    landed = valid_lines = change_lines = 0
    figures = []
    for replayed in replay(landing):
        batch = replayed.batch
        change_lines += len(landing.changes[batch])
        landed += len(replayed.lines)
        quarantined.update(line.outcome for line in replayed.lines if line.outcome in REASONS)
        quarantined.update(line.outcome for line in replayed.requarantined)
        for row in valid_rows(replayed):
            valid_lines += 1
            winner = winners.get(row["event_id"])
            if winner is None or row["event_version"] > winner["event_version"]:
                winners[row["event_id"]] = row

        by_industry = Counter()
        for row in winners.values():
            account = replayed.alive.get(row["account_id"])
            by_industry[account["industry"] if account else "unknown"] += row["cost_micros"]
        types = Counter(row["event_type"] for row in winners.values())
        figures.append(
            {
                "batch": batch,
                "landed_event_lines": landed,
                "malformed": {reason: quarantined[reason] for reason in REASONS},
                "valid_event_lines": valid_lines,
                "held_event_lines": len(replayed.held),
                "events": len(winners),
                "cost_micros": sum(row["cost_micros"] for row in winners.values()),
                "impressions": types["impression"],
                "clicks": types["click"],
                "conversions": types["conversion"],
                "cost_by_industry": dict(sorted(by_industry.items())),
                "account_change_lines": change_lines,
                "accounts_current": len(replayed.alive),
            }
        )
    return figures


def test_truth_matches_an_independent_recomputation(landing):
    truth_file = json.loads((landing.out / "truth.json").read_text(encoding="utf-8"))
    assert truth_file == landing.returned_truth
    recomputed = recompute_truth(landing)
    for expected, actual in zip(recomputed, truth_file["batches"], strict=True):
        assert actual == expected, f"batch {expected['batch']}"
    params = dict(PARAMS, start=START.isoformat())
    assert truth_file["params"] == params


def test_every_landed_line_is_valid_quarantined_or_held(landing):
    lines = 0
    for batch, figures in enumerate(landing.returned_truth["batches"], start=1):
        lines += len(landing.event_lines[batch])
        assert figures["landed_event_lines"] == lines
        assert lines == (
            figures["valid_event_lines"]
            + sum(figures["malformed"].values())
            + figures["held_event_lines"]
        ), f"batch {batch}"
        assert list(figures["malformed"]) == list(REASONS)


def test_truth_is_not_trivial(landing):
    """The recomputation only means something if the mess changes the figures."""
    last = landing.returned_truth["batches"][-1]
    assert last["valid_event_lines"] > last["events"]  # duplicates and versions collapsed
    assert all(last["malformed"][reason] > 0 for reason in REASONS)
    assert last["held_event_lines"] > 0  # the unknown accounts' lines
    assert "unknown" in last["cost_by_industry"]  # a deleted account had spent
    assert last["accounts_current"] < PARAMS["accounts"]


# --- Determinism ------------------------------------------------------------------------


def file_bytes(out: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(out)): path.read_bytes()
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


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


def test_other_late_accounts_other_account_files(tmp_path):
    small = dict(PARAMS, events=3_000, batches=3, accounts=60)
    generator.generate(tmp_path / "a", **dict(small, late_accounts=3))
    generator.generate(tmp_path / "b", **dict(small, late_accounts=3))
    generator.generate(tmp_path / "c", **dict(small, late_accounts=0))
    first, second, other = (file_bytes(tmp_path / name) for name in "abc")
    assert first == second
    for batch in ("batch=000001", "batch=000002"):
        name = f"account_changes/{batch}/part-0000.jsonl"
        assert first[name] != other[name]


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
        assert not data.startswith(BOM), path


def test_only_bad_encoding_lines_are_not_utf8(replayed):
    for batch in replayed:
        for line in batch.lines:
            try:
                line.raw.decode("utf-8")
            except UnicodeDecodeError:
                assert line.outcome == "bad_encoding", line.raw


# --- The mess in every batch --------------------------------------------------------------


def test_every_batch_mixes_in_every_kind_of_mess(landing, replayed):
    earlier_versions: dict[str, dict[int, int]] = {}  # event_id -> {version: cost}, earlier batches
    seen_lines: set[bytes] = set()
    for batch in replayed:
        rows, duplicates = [], 0
        for line in batch.lines:
            if line.outcome == "valid":
                rows.append(line.row)
                duplicates += line.raw in seen_lines
                seen_lines.add(line.raw)

        versions = {event_id: dict(costs) for event_id, costs in earlier_versions.items()}
        for row in rows:
            versions.setdefault(row["event_id"], {})[row["event_version"]] = row["cost_micros"]
        corrections = [
            row
            for row in rows
            if row["event_version"] > 1
            and row["event_version"] - 1 in versions[row["event_id"]]
            and versions[row["event_id"]][row["event_version"] - 1] != row["cost_micros"]
        ]
        stale = [
            row
            for row in rows
            if row["event_id"] in earlier_versions
            and max(earlier_versions[row["event_id"]]) > row["event_version"]
        ]
        new_rows = [row for row in rows if row["event_id"] not in earlier_versions]
        start = window_start(batch.batch)
        late = [
            row for row in new_rows if parse_time(row["event_time"]) <= start - timedelta(days=1)
        ]
        previous_window = [
            row for row in new_rows if start - WINDOW <= parse_time(row["event_time"]) < start
        ]

        assert duplicates > 0, f"batch {batch.batch}: no exact duplicate"
        assert corrections, f"batch {batch.batch}: no correction"
        assert batch.batch == 1 or stale, f"batch {batch.batch}: no stale version"
        assert late, f"batch {batch.batch}: no event a day late"
        assert previous_window, f"batch {batch.batch}: no out-of-order event"
        earlier_versions = versions


def first_delete_batch(landing: Landing) -> int:
    return min(batch for batch, rows in landing.changes.items() for row in rows if row["op"] == "D")


def test_every_batch_has_every_kind_of_malformed_line(landing, replayed):
    """Every line reason in every batch; deleted_account from the batch after
    the first delete; unknown_account lines (held) in every batch."""
    after_first_delete = first_delete_batch(landing) + 1
    for batch in replayed:
        reasons = Counter(line.outcome for line in batch.lines)
        unknown = [
            line
            for line in batch.lines
            if line.outcome == "held" and line.row["account_id"] >= UNKNOWN_ACCOUNT_BASE
        ]
        assert all(reasons[reason] > 0 for reason in LINE_REASONS), (
            f"batch {batch.batch}: {reasons}"
        )
        assert unknown, f"batch {batch.batch}: no unknown account"
        if batch.batch >= after_first_delete:
            assert reasons["deleted_account"] > 0, f"batch {batch.batch}: {reasons}"
        else:  # nothing is deleted yet: its share went to the other kinds
            assert reasons["deleted_account"] == 0
            assert sum(reasons[reason] for reason in LINE_REASONS) > len(LINE_REASONS) * 2
    assert after_first_delete <= PARAMS["batches"]  # the check above must not be vacuous


def of_reason(replayed: list[BatchReplay], batch: int, reason: str) -> list[Landed]:
    return [line for line in replayed[batch - 1].lines if line.outcome == reason]


def test_wrong_types_alternate_text_as_number_and_number_as_string(replayed):
    for batch in range(1, PARAMS["batches"] + 1):
        variants = set()
        for line in of_reason(replayed, batch, "wrong_type"):
            row = line.row
            text_as_number = [key for key in TEXT_KEYS if is_number(row[key])]
            number_as_text = [key for key in NUMBER_KEYS if isinstance(row[key], str)]
            assert len(text_as_number + number_as_text) == 1, line.raw  # one defect per line
            variants.add("text as number" if text_as_number else "number as text")
            if number_as_text:  # the digits of a real number, only in quotes
                assert re.fullmatch(r"-?\d+", row[number_as_text[0]]), line.raw
        assert variants == {"text as number", "number as text"}, f"batch {batch}"


def test_times_out_of_range_alternate_1970_and_2100(replayed):
    for batch in range(1, PARAMS["batches"] + 1):
        years = {
            parse_time(line.row["event_time"]).year
            for line in of_reason(replayed, batch, "time_out_of_range")
        }
        assert years == {1970, 2100}, f"batch {batch}"


def test_bad_values_are_nulls_unreadable_times_and_unknown_types(replayed):
    kinds = Counter()
    for batch in replayed:
        for line in batch.lines:
            if line.outcome != "bad_value":
                continue
            row = line.row
            if any(value is None for value in row.values()):
                kinds["null"] += 1
            elif read_time(row["event_time"]) is None:
                kinds["time"] += 1
            elif row["event_type"] not in ("impression", "click", "conversion"):
                kinds["event_type"] += 1
            else:
                kinds["billing_type"] += 1
    assert set(kinds) == {"null", "time", "event_type", "billing_type"}, kinds


def test_bad_encoding_lines_are_otherwise_valid(replayed):
    """Read leniently they would pass every other line rule: only the encoding
    check catches them."""
    lines = [line for batch in replayed for line in batch.lines if line.outcome == "bad_encoding"]
    assert lines
    for line in lines:
        assert set(line.row) == EVENT_KEYS
        assert line.raw.count(b"\xff") + line.raw.count(b"\xfe") + line.raw.count(b"\x80") == 1
        spoiled = [key for key in TEXT_KEYS if "\ufffd" in line.row[key]]
        assert len(spoiled) == 1, line.raw


def test_costs_out_of_range_and_deleted_accounts_lines(landing, replayed):
    deleted_at = {
        row["account_id"]: datetime.strptime(row["change_time"], "%Y-%m-%d %H:%M:%S")
        for rows in landing.changes.values()
        for row in rows
        if row["op"] == "D"
    }
    for batch in replayed:
        for line in batch.lines:
            if line.outcome == "cost_out_of_range":
                assert line.row["cost_micros"] > 10**12
            if line.outcome == "deleted_account":
                assert parse_time(line.row["event_time"]) > deleted_at[line.row["account_id"]]


# --- Late accounts -------------------------------------------------------------------------


def late_inserts(landing: Landing) -> dict[int, dict]:
    """account_id -> insert row, for the inserts that landed in batch 2."""
    return {row["account_id"]: row for row in landing.changes.get(2, []) if row["op"] == "I"}


def test_late_accounts_are_held_in_batch_1_and_released_in_batch_2(landing, replayed):
    late = late_inserts(landing)
    assert len(late) == PARAMS["late_accounts"]
    # The insert is the batch 1 insert, only late: its change_time is in batch 1's window.
    for row in late.values():
        assert (
            window_start(1)
            <= datetime.strptime(row["change_time"], "%Y-%m-%d %H:%M:%S")
            < window_start(2)
        )
    assert not late.keys() & {row["account_id"] for row in landing.changes[1]}

    first, second = replayed[0], replayed[1]
    late_lines = [
        line
        for line in first.lines
        if line.row is not None
        and line.row.get("account_id") in late
        and line.outcome not in REASONS
    ]
    assert late_lines and all(line.outcome == "held" for line in late_lines)
    assert sorted(map(id, second.released)) == sorted(map(id, late_lines))

    truth = landing.returned_truth["batches"]
    unknown = [
        [line for line in batch.held if line.row["account_id"] >= UNKNOWN_ACCOUNT_BASE]
        for batch in replayed
    ]
    assert truth[0]["held_event_lines"] == len(late_lines) + len(unknown[0])
    assert truth[1]["held_event_lines"] == len(unknown[1])  # only unknown accounts are left
    assert truth[0]["accounts_current"] == PARAMS["accounts"] - len(late)
    released_billed = sum(
        row["cost_micros"] for row in valid_rows(second) if row["account_id"] in late
    )
    assert released_billed > 0  # they are billed, from batch 2
    # Valid in batch 2: its own valid lines plus the released ones.
    own_valid = sum(line.outcome == "valid" for line in second.lines)
    assert truth[1]["valid_event_lines"] - truth[0]["valid_event_lines"] == own_valid + len(
        late_lines
    )


@pytest.mark.parametrize(
    "params",
    [dict(late_accounts=0), dict(batches=1, events=2_000)],
    ids=["turned off", "one batch"],
)
def test_no_late_accounts(tmp_path, params):
    truth = generator.generate(tmp_path, **{**PARAMS, "events": 4_000, **params})
    landing = read_landing(tmp_path, truth)
    assert not late_inserts(landing)
    assert len({row["account_id"] for row in landing.changes[1]}) == PARAMS["accounts"]
    first = replay(landing)[0]
    assert all(line.row["account_id"] >= UNKNOWN_ACCOUNT_BASE for line in first.held)
    assert truth["batches"][0]["held_event_lines"] == len(first.held)


@pytest.mark.parametrize("late", [-1, PARAMS["accounts"]])
def test_late_accounts_out_of_range_are_refused(tmp_path, late):
    with pytest.raises(ValueError, match="--late-accounts"):
        generator.generate(tmp_path, **dict(PARAMS, late_accounts=late))


# --- Valid lines are consistent ----------------------------------------------------------


def all_valid_rows(replayed: list[BatchReplay]) -> list[dict]:
    return [row for batch in replayed for row in valid_rows(batch)]


def test_new_events_fall_in_their_window_or_at_most_72_hours_before(replayed):
    seen: set[str] = set()
    for batch in replayed:
        rows = [
            line.row
            for line in batch.lines
            if line.outcome in ("valid", "held") and line.row["account_id"] < UNKNOWN_ACCOUNT_BASE
        ]
        window_end = window_start(batch.batch) + WINDOW
        for row in rows:
            moment = parse_time(row["event_time"])
            assert moment < window_end  # nothing from the future, copies included
            if row["event_id"] not in seen:
                assert moment >= window_start(batch.batch) - timedelta(hours=72), row
        seen |= {row["event_id"] for row in rows}


def test_event_files_are_not_in_time_order(replayed):
    for batch in replayed:
        for part in ("part-0000.jsonl", "part-0001.jsonl"):
            times = [
                line.row["event_time"]
                for line in batch.lines
                if line.file == part and line.outcome == "valid"
            ]
            assert times != sorted(times), f"batch {batch.batch} {part}"


def test_event_type_mix_is_roughly_85_12_3(replayed):
    rows = all_valid_rows(replayed)
    shares = Counter(row["event_type"] for row in rows)
    assert abs(shares["impression"] / len(rows) - 0.85) < 0.03
    assert abs(shares["click"] / len(rows) - 0.12) < 0.03
    assert abs(shares["conversion"] / len(rows) - 0.03) < 0.015


def test_valid_lines_follow_ad_campaign_account_and_pricing(landing, replayed):
    for row in all_valid_rows(replayed):
        ad = landing.ads[row["ad_id"]]
        assert ad["campaign_id"] == row["campaign_id"]
        assert landing.campaigns[row["campaign_id"]]["account_id"] == row["account_id"]
        assert ad["billing_type"] == row["billing_type"]
        assert row["media_id"] in landing.media
        assert row["event_type"] in {"impression", "click", "conversion"}
        assert re.fullmatch(r"e[0-9a-f]{12}", row["event_id"])
        assert row["cost_micros"] == 0 or (row["event_type"], row["billing_type"]) in BILLED


def test_malformed_lines_never_share_an_id_with_valid_lines(replayed):
    valid_ids = {row["event_id"] for row in all_valid_rows(replayed)}
    malformed_ids = set()
    for batch in replayed:
        for line in batch.lines:
            if line.outcome in ("valid", "held") and line.row["account_id"] < UNKNOWN_ACCOUNT_BASE:
                continue  # valid now or once released
            event_id = line.row.get("event_id") if line.row is not None else None
            if isinstance(event_id, int):  # written as a number: its serial
                event_id = f"e{event_id:012x}"
            if isinstance(event_id, str):
                malformed_ids.add(event_id.replace("\ufffd", ""))
            else:  # a cut line still shows its id when the cut came after it
                malformed_ids |= set(
                    re.findall(r'"event_id":"([^"]+)"', line.raw.decode("utf-8", "replace"))
                )
    assert len(malformed_ids) > 50  # the check below must not be vacuous
    assert not malformed_ids & valid_ids


# --- Account changes -----------------------------------------------------------------------


def test_batch_1_inserts_every_account_but_the_late_ones(landing):
    rows = landing.changes[1] + list(late_inserts(landing).values())
    assert {row["op"] for row in landing.changes[1]} == {"I"}
    first, count = 1001, PARAMS["accounts"]
    assert {row["account_id"] for row in rows} == set(range(first, first + count))
    direct = {row["account_id"] for row in rows if row["agency_id"] is None}
    assert all(row["agency_name"] == "Direct" for row in rows if row["agency_id"] is None)
    assert 0.1 < len(direct) / count < 0.3


def test_changes_are_sequenced_duplicated_exactly_and_shuffled(landing):
    by_seq: dict[int, dict] = {}
    shuffled = False
    late = late_inserts(landing)
    for batch, rows in landing.changes.items():
        for row in rows:
            assert by_seq.setdefault(row["change_seq"], row) == row  # a repeat is an exact copy
            moment = datetime.strptime(row["change_time"], "%Y-%m-%d %H:%M:%S")
            landed_in = 1 if row["account_id"] in late and row["op"] == "I" else batch
            assert window_start(landed_in) <= moment < window_start(landed_in) + WINDOW
        seqs = [row["change_seq"] for row in rows]
        shuffled |= seqs != sorted(seqs)
        assert len(seqs) > len(set(seqs)), f"batch {batch}: no repeated row"
    assert sorted(by_seq) == list(range(1, len(by_seq) + 1))
    assert shuffled


def assert_nothing_about_deleted_accounts(landing: Landing, replayed: list[BatchReplay]) -> None:
    """From its delete batch on, an account gets no change and no event line
    but deleted_account lines, which come from the next batch on."""
    deleted_in = {
        row["account_id"]: batch
        for batch, rows in landing.changes.items()
        for row in rows
        if row["op"] == "D"
    }
    assert deleted_in
    for batch in landing.changes:
        for row in landing.changes[batch]:
            if row["account_id"] in deleted_in and batch > deleted_in[row["account_id"]]:
                pytest.fail(f"change to account {row['account_id']} after its delete")
    for batch in replayed:
        for line in batch.lines:
            account = line.row.get("account_id") if line.row is not None else None
            if line.outcome == "deleted_account":
                assert batch.batch > deleted_in[account], line.raw
            else:
                assert account not in deleted_in or batch.batch < deleted_in[account], line.raw


def test_updates_and_deletes_and_no_events_for_deleted_accounts(landing, replayed):
    later_ops = Counter(
        row["op"] for batch, rows in landing.changes.items() if batch > 1 for row in rows
    )
    assert later_ops["U"] > 0 and later_ops["D"] > 0
    assert_nothing_about_deleted_accounts(landing, replayed)


def test_no_copies_of_a_deleted_accounts_events_either(tmp_path):
    """With 3 accounts a deleted one holds about a third of the recent events
    and replaced versions, so duplicates, corrections and stale versions of its
    events would show up here if they were not dropped at its delete."""
    truth = generator.generate(
        tmp_path, **dict(PARAMS, events=6_000, batches=4, accounts=3, late_accounts=1)
    )
    landing = read_landing(tmp_path, truth)
    assert_nothing_about_deleted_accounts(landing, replay(landing))


def test_a_delete_carries_the_last_known_attributes(landing):
    latest: dict[int, dict] = {}
    for batch in sorted(landing.changes):
        for row in sorted(landing.changes[batch], key=lambda row: row["change_seq"]):
            if row["op"] == "D":
                before = {
                    key: value
                    for key, value in latest[row["account_id"]].items()
                    if key not in ("op", "change_time", "change_seq")
                }
                assert {key: row[key] for key in before} == before
            latest[row["account_id"]] = row


# --- The command line -----------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "adlake.generator", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


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


def test_cli_late_accounts(tmp_path):
    result = run_cli(
        "--out", str(tmp_path / "a"), "--events", "2000", "--batches", "2", "--late-accounts", "5"
    )
    assert result.returncode == 0, result.stderr
    truth = json.loads((tmp_path / "a" / "truth.json").read_text())
    assert truth["params"]["late_accounts"] == 5
    assert truth["batches"][0]["accounts_current"] == 200 - 5
    refused = run_cli("--out", str(tmp_path / "b"), "--accounts", "10", "--late-accounts", "10")
    assert refused.returncode == 2 and "--late-accounts" in refused.stderr
