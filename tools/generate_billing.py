"""Generate deterministic, deliberately messy source data for the billing warehouse.

The warehouse ingests three feeds: static dimensions, billing events landing as
micro-batches of JSON-lines files, and account changes as CDC batches. Real
feeds are messy, so every batch mixes in duplicates, out-of-order and late
events, corrections, stale versions and malformed lines: a pipeline that
ignores any of them gets the figures wrong. Alongside the data the generator
writes `truth.json`, the figures a correct warehouse must show after each
batch, computed here in Python (no SQL), for tests to reconcile against.

    python tools/generate_billing.py --out DIR [--seed 7] [--events 10000]
        [--batches 6] [--accounts 200] [--late-accounts 2]
        [--start 2026-11-20T00:00:00] [--batch-minutes 480] [--force]

or, from Python, `generate(out, seed=7, events=10_000, ...)`, which returns the
truth dict. The same seed and parameters give byte-identical files: the only
source of randomness is one `random.Random(seed)`, and nothing depends on the
clock or on the order of a set. Lines are written as they are made; what is
kept in memory is bounded, except the truth's (version, cost) per event id
and the lines it holds (see truth.json).

--out must be empty or not exist yet. With --force, a previous output (the
four entries below) is removed first; anything else in the folder is left
alone, so a mistyped --out loses nothing but an earlier generated data set.

Layout
------
All times are UTC; every file is JSON lines (one object per line, `\\n` endings)
in UTF-8, except that a few billing-event lines carry a byte that is not valid
UTF-8 on purpose (bad_encoding below): read event files as bytes, not text.
No file starts with a byte-order mark. Batch numbers are 1-based and
zero-padded to 6 digits::

    DIR/dimensions/media.jsonl        media_id, media_name, media_type (search|feed|video|social)
    DIR/dimensions/campaigns.jsonl    campaign_id, account_id, campaign_name, objective
    DIR/dimensions/ads.jsonl          ad_id, campaign_id, ad_name, billing_type (CPC|CPM|oCPM)
    DIR/account_changes/batch=000001/part-0000.jsonl        CDC rows of the batch
    DIR/billing_events/batch=000001/part-0000.jsonl         the batch's event lines,
    DIR/billing_events/batch=000001/part-0001.jsonl           split at random over 2 files
    DIR/truth.json                    one line: {"batches": [...], "params": {...}}

Dimensions are written once (static reference data): about 12 media, 2-4
campaigns per account, 1-3 ads per campaign. Every batch has one account
changes file and two event files, even if one of them happens to be empty.

Batch b covers the window [start + (b-1)*batch_minutes, start + b*batch_minutes).

Account changes (CDC)
---------------------
Rows: op (I|U|D), account_id, account_name, agency_id (null for direct
advertisers), agency_name ("Direct" for them, about 20% of accounts), industry
(one of 8), change_time ("YYYY-MM-DD HH:MM:SS", inside the batch window) and
change_seq, which increases by one per change across all batches and is the
key to order and deduplicate changes by.

- Batch 1 inserts every account, ids 1001 .. 1000+accounts.
- Late accounts: --late-accounts of them (default 2, 0 for none; picked with
  the rng) have their insert row land in batch 2's file instead of batch 1's,
  unchanged (same change_seq, and a change_time in batch 1's window). Their
  batch 1 events are made as usual, so the warehouse holds them until batch 2
  lands. With --batches 1 no account is late.
- Each later batch updates about 3% of the live accounts (one of: industry,
  agency or name) and every even batch deletes one account (while more than
  one is alive). A delete carries
  the account's last known attributes; a deleted account gets no further
  changes. The same batch may update and then delete an account.
- A file's rows are shuffled (so, as a rule, not in change_seq order) and a
  few of them are repeated exactly.

Billing events
--------------
A valid line has 10 keys: event_id ("e" + 12 hex digits), event_version (1,
then +1 per correction), event_type (impression|click|conversion, about
85/12/3%), event_time ("YYYY-MM-DD HH:MM:SS.ffffff"), account_id, campaign_id,
ad_id, media_id, billing_type and cost_micros. An event picks an ad and takes
its campaign, account and billing type, so the three always agree. Only the
event type an ad bills for costs money: CPM impressions 500-5,000 micros, CPC
clicks 50,000-2,000,000, oCPM conversions 500,000-20,000,000; anything else
costs 0.

Events of batch b are generated only for accounts alive after the batch's
account changes (late accounts count as alive from batch 1): an account
deleted in batch b gets no new events, duplicates, corrections or stale
versions from batch b on (its earlier events stay valid), except the
deleted_account lines below.

`--events` counts event lines of every kind over all batches; each batch gets
events // batches lines, the last one also the remainder. Shares of a batch's
lines (each at least one line, as far as the batch has room):

- fresh events, in file order roughly in time order across the window, except:
  3% late (event_time 1 minute to 72 hours before the window) and 5% out of
  order (event_time inside the previous batch's window, capped at 72 hours;
  for batch 1 that is the window before --start), so a file is not in time
  order;
- 2% exact duplicates: a recent line (of the last 4,096 events) repeated byte
  for byte, in either file of the batch, sometimes of an event from an earlier
  batch;
- 2% corrections: a recent billable event (cost > 0) again with
  event_version + 1 and a different cost_micros, all else unchanged;
- 0.5% stale versions (from batch 2 on): the version a correction replaced,
  arriving in a later batch than the correction; it must not win;
- 1% lines the warehouse must not bill as they land, 0.1% each of ten kinds,
  one per reason of the rules below. Each is a fresh event (own event id, so
  it never shares an id with another line) timed in the window, with one
  defect:
  - broken_json: the line cut in half;
  - bad_encoding: one raw byte 0xff, 0xfe or 0x80 inside a string value;
  - missing_key: no event_id, account_id, cost_micros or event_time;
  - wrong_type: in turn, a text key written as a number (event_id as its
    serial, event_type or billing_type as a code, event_time as epoch
    seconds) and a number key written as a string of its digits (say
    cost_micros "1234");
  - bad_value: in turn, a null value (any key), an event_time that is no
    timestamp, an unknown event_type and an unknown billing_type;
  - negative_cost: cost_micros < 0;
  - cost_out_of_range: cost_micros from 10^12 + 1 to 10^15;
  - time_out_of_range: an event_time in 1970 and, in turn, in 2100;
  - unknown_account: account_id from 999000 up, never an account (held for
    ever);
  - deleted_account: an event for an account deleted in an earlier batch
    (so from the batch after the first delete on), timed after the delete;
    while no account is deleted yet, a line of one of the first eight kinds
    instead (picked with the rng).

If a duplicate, correction or stale version has nothing to copy (say, at the
very start of batch 1), that line is a fresh event instead.

truth.json
----------
`batches` holds one entry per batch with cumulative figures through it: entry
b is the warehouse after landing batches 1..b, each batch's account changes
before its event lines. Every event line is classified as it lands by the
first of these rules that matches:

 1. broken_json: the line is not a JSON object. A line is its bytes decoded
    as UTF-8, each invalid byte read as U+FFFD (a UTF-8 byte-order mark at the
    very start of a file would be stripped, not an error).
 2. bad_encoding: the line has bytes that are not valid UTF-8.
 3. missing_key: one of the 10 keys is absent.
 4. wrong_type: a key has the wrong JSON type: event_id, event_type,
    event_time and billing_type must be strings; event_version, account_id,
    campaign_id, ad_id, media_id and cost_micros numbers. (A null is no type
    error: see 5.)
 5. bad_value: a value is null or cannot be read: an event_time that is not a
    "YYYY-MM-DD HH:MM:SS[.ffffff]" timestamp, an event_type other than
    impression|click|conversion, a billing_type other than CPC|CPM|oCPM, a
    number that is not whole.
 6. negative_cost: cost_micros < 0.
 7. cost_out_of_range: cost_micros > 1,000,000,000,000 (10^12 micros).
 8. time_out_of_range: event_time before 2000-01-01 00:00:00, or more than one
    day after the moment the line is ingested. The truth takes each batch to
    be ingested after its window ends, when no ordinary line is out of range
    (a warehouse whose clock is more than a day before a window, say one run
    on a --start in the future, would disagree); 1970 and 2100 always are.
 9. unknown_account: the account_id has no insert (op I) among the account
    changes landed so far, this batch's included. The line is HELD, not
    quarantined.
10. deleted_account: the account's latest landed change (highest change_seq)
    is a delete (op D) whose change_time <= the line's event_time.

Otherwise the line is valid. Rules 1-8 depend on the line alone, so they are
final; a held line is classified again by rules 9-10 each time a later batch
lands: it is released (valid, in that batch) once its account's insert has
landed, or quarantined as deleted_account if rule 10 applies by then. An
unknown_account line is held for ever; a late account's lines are released
by batch 2. Per event_id the highest event_version among valid lines wins (a
duplicate changes nothing, a stale version never wins).

- landed_event_lines: every event line landed so far,
  = valid_event_lines + sum(malformed) + held_event_lines;
- valid_event_lines: lines found valid, each once: when it lands valid, or in
  the batch that releases it;
- malformed: quarantined lines per reason, every reason above except
  unknown_account, in rule order, zeros included;
- held_event_lines: lines held after the batch;
- events, cost_micros, impressions, clicks, conversions: over deduplicated
  valid events (a held line counts from the batch it is released in);
- cost_by_industry: deduplicated cost by the industry of the event's account
  in the latest landed CDC state, "unknown" for an account deleted by then; it
  lists the groups that have at least one event;
- account_change_lines: CDC rows landed (duplicates included);
- accounts_current: accounts whose latest landed change (by change_seq) is
  not a delete (a late account counts once its insert has landed).

`params` records the parameters the data was generated with.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

# --- Reference data -----------------------------------------------------------

INDUSTRIES = ("travel", "gaming", "retail", "finance", "education", "automotive", "health", "food")

AGENCIES = (
    (1, "Blue Agency"),
    (2, "Red Agency"),
    (3, "Green Agency"),
    (4, "Orange Agency"),
    (5, "Purple Agency"),
    (6, "Silver Agency"),
    (7, "Harbor Media"),
    (8, "Summit Partners"),
    (9, "Northstar Digital"),
    (10, "Lighthouse Ads"),
)
DIRECT_SHARE = 0.2

MEDIA = (
    ("Findly Search", "search"),
    ("Seekwell", "search"),
    ("Lookup Ads", "search"),
    ("Scrollbook", "feed"),
    ("Newsstream", "feed"),
    ("Dailyfeed", "feed"),
    ("Tubeview", "video"),
    ("Clipcast", "video"),
    ("Streamly", "video"),
    ("Chatterly", "social"),
    ("Pinwall", "social"),
    ("Circlespace", "social"),
)

OBJECTIVES = ("awareness", "traffic", "conversions")

NAME_PREFIXES = (
    "Northwind",
    "Contoso",
    "Fabrikam",
    "Litware",
    "Adatum",
    "Tailspin",
    "Wingtip",
    "Proseware",
    "Lucerne",
    "Woodgrove",
    "Alpine",
    "Coho",
    "Bluebird",
    "Granite",
    "Maple",
    "Silverline",
)
NAME_NOUNS = {
    "travel": ("Travel", "Trips", "Getaways"),
    "gaming": ("Games", "Studios", "Arcade"),
    "retail": ("Shoes", "Outlet", "Market"),
    "finance": ("Loans", "Bank", "Insurance"),
    "education": ("Academy", "Learning", "Tutors"),
    "automotive": ("Motors", "Auto", "Tyres"),
    "health": ("Clinic", "Pharmacy", "Wellness"),
    "food": ("Kitchen", "Bakery", "Delivery"),
}

FIRST_ACCOUNT_ID = 1001
# Far above any generated account id, so an unknown_account line can never
# accidentally name a real account.
UNKNOWN_ACCOUNT_BASE = 999_000
MAX_ACCOUNTS = 100_000

# --- Event rules ----------------------------------------------------------------

# The keys a missing_key line drops (one each): the ones a pipeline needs most.
DROPPABLE_KEYS = ("event_id", "account_id", "cost_micros", "event_time")

# The event type each billing type charges for, and its cost range in micros.
BILLED_EVENT = {
    "CPM": ("impression", 500, 5_000),
    "CPC": ("click", 50_000, 2_000_000),
    "oCPM": ("conversion", 500_000, 20_000_000),
}

EPOCH = datetime(1970, 1, 1)

MAX_LATENESS = timedelta(hours=72)
MIN_LATENESS = timedelta(minutes=1)

# How much of the recent past duplicates and corrections copy from, and how
# many replaced versions are kept around to arrive stale later. Bounded, so
# memory does not grow with --events.
RECENT_POOL_SIZE = 4096
STALE_POOL_SIZE = 4096

# Line kinds of a batch plan. FRESH is the default: a new event in time order.
FRESH, LATE, OUT_OF_ORDER, DUPLICATE, CORRECTION, STALE = range(6)
# Lines the warehouse must not bill as they land, one kind per reason, in the
# order of the classification rules (see the module docstring).
(
    BROKEN_JSON,
    BAD_ENCODING,
    MISSING_KEY,
    WRONG_TYPE,
    BAD_VALUE,
    NEGATIVE_COST,
    COST_OUT_OF_RANGE,
    TIME_OUT_OF_RANGE,
    UNKNOWN_ACCOUNT,
    DELETED_ACCOUNT,
) = range(6, 16)
MALFORMED_KINDS = (
    BROKEN_JSON,
    BAD_ENCODING,
    MISSING_KEY,
    WRONG_TYPE,
    BAD_VALUE,
    NEGATIVE_COST,
    COST_OUT_OF_RANGE,
    TIME_OUT_OF_RANGE,
    UNKNOWN_ACCOUNT,
    DELETED_ACCOUNT,
)
# The kinds whose defect is in the line itself (rules 1-8): their reason is
# known when they are made. unknown_account and deleted_account depend on
# the account feed as landed, so the truth decides those.
LINE_DEFECTS = {
    BROKEN_JSON: "broken_json",
    BAD_ENCODING: "bad_encoding",
    MISSING_KEY: "missing_key",
    WRONG_TYPE: "wrong_type",
    BAD_VALUE: "bad_value",
    NEGATIVE_COST: "negative_cost",
    COST_OUT_OF_RANGE: "cost_out_of_range",
    TIME_OUT_OF_RANGE: "time_out_of_range",
}
# truth.json's `malformed` keys: every reason a line is quarantined for, in
# rule order. unknown_account is not one: such a line is held, not quarantined.
QUARANTINE_REASONS = (*LINE_DEFECTS.values(), "deleted_account")
# What a deleted_account line becomes while no account has been deleted yet:
# any kind that is always possible.
DELETED_ACCOUNT_STAND_INS = tuple(LINE_DEFECTS)

# 1% of a batch's lines are malformed, split evenly over the kinds.
MALFORMED_SHARE = 0.01
# Share of a batch's lines per special kind. Listed rarest first: if a tiny
# batch cannot hold them all, the rare kinds are the ones that still get in.
KIND_SHARES = (
    *((kind, MALFORMED_SHARE / len(MALFORMED_KINDS)) for kind in MALFORMED_KINDS),
    (STALE, 0.005),
    (CORRECTION, 0.02),
    (DUPLICATE, 0.02),
    (LATE, 0.03),
    (OUT_OF_ORDER, 0.05),
)

# The JSON type each key must have (rule 4), and the values rule 5 accepts.
TEXT_KEYS = ("event_id", "event_type", "event_time", "billing_type")
NUMBER_KEYS = ("event_version", "account_id", "campaign_id", "ad_id", "media_id", "cost_micros")
EVENT_KEYS = TEXT_KEYS + NUMBER_KEYS
EVENT_TYPES = ("impression", "click", "conversion")
BILLING_TYPES = ("CPC", "CPM", "oCPM")

# Bytes that are never valid in UTF-8 wherever they stand (0x80 is a
# continuation byte with nothing to continue), for bad_encoding lines.
INVALID_UTF8_BYTES = (b"\xff", b"\xfe", b"\x80")

# Rule 7's ceiling, and the range cost_out_of_range lines take their cost from.
MAX_COST_MICROS = 10**12
OUT_OF_RANGE_COSTS = (MAX_COST_MICROS + 1, 10**15)
# time_out_of_range lines fall in one of these years, in turn: one far before
# rule 8's floor (2000-01-01), one far after any ingestion.
OUT_OF_RANGE_YEARS = (1970, 2100)

# bad_value lines: values of the right JSON type that cannot be read.
UNREADABLE_TIMES = ("not a time", "2026-13-45 25:61:00", "yesterday", "")
# No case variants ("Click"): whether those read is a matter of taste, not a test.
UNKNOWN_EVENT_TYPES = ("view", "install", "engagement")
UNKNOWN_BILLING_TYPES = ("CPA", "CPV", "flat")

# Compact separators: smaller files, and one encoder object reused for speed.
ENCODER = json.JSONEncoder(separators=(",", ":"))


# --- Small helpers ----------------------------------------------------------------


def format_event_time(moment: datetime) -> str:
    """Event times carry microseconds, always all six digits."""
    return moment.isoformat(sep=" ", timespec="microseconds")


def format_change_time(moment: datetime) -> str:
    """CDC change times are to the second."""
    return moment.isoformat(sep=" ", timespec="seconds")


def batch_name(batch: int) -> str:
    return f"batch={batch:06d}"


def lines_per_batch(events: int, batches: int) -> list[int]:
    """Even split; the last batch also takes the remainder."""
    share = events // batches
    return [share] * (batches - 1) + [share + events % batches]


def encode_line(event: dict) -> bytes:
    """One event as its line's bytes, without the newline. ASCII: the encoder
    escapes anything else, so the only non-ASCII bytes are bad_encoding's."""
    return ENCODER.encode(event).encode("ascii")


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            handle.write(ENCODER.encode(row) + "\n")


# --- Accounts and their CDC -------------------------------------------------------


@dataclass
class Account:
    account_id: int
    account_name: str
    agency_id: int | None
    agency_name: str
    industry: str


def random_account_name(rng: random.Random, industry: str) -> str:
    return f"{rng.choice(NAME_PREFIXES)} {rng.choice(NAME_NOUNS[industry])}"


def random_agency(rng: random.Random) -> tuple[int | None, str]:
    """An agency, or (None, "Direct") for an advertiser buying directly."""
    if rng.random() < DIRECT_SHARE:
        return None, "Direct"
    return rng.choice(AGENCIES)


class AccountBook:
    """The accounts as the generator knows them, and the source of the CDC rows.

    It applies every change when it makes it, so it can run ahead of the feed:
    a late account is alive here from batch 1 although its insert lands in
    batch 2. The truth therefore keeps its own state of the landed feed
    (LandedAccounts) instead of trusting this one."""

    def __init__(self, rng: random.Random, count: int, late: int = 0):
        self.rng = rng
        self.count = count
        self.late = late
        self.alive: dict[int, Account] = {}
        self.deleted_in: dict[int, int] = {}  # account_id -> batch of its delete
        self.last_seq = 0
        self.deferred: list[dict] = []  # the late accounts' insert rows, for batch 2

    def changes_for_batch(
        self, batch: int, window_start: datetime, window: timedelta
    ) -> list[dict]:
        """Apply this batch's changes and return its CDC file rows (shuffled, a few repeated)."""
        if batch == 1:
            rows = self._stamp(self._insert_all(), window_start, window)
            rows, self.deferred = self._split_off_late(rows)
        else:
            changes = self._update_some()
            if batch % 2 == 0 and len(self.alive) > 1:
                changes.append(self._delete_one(batch))
            # The late inserts come first only in the list: _mess_up shuffles.
            rows = self.deferred + self._stamp(changes, window_start, window)
            self.deferred = []
        return self._mess_up(rows)

    def _split_off_late(self, rows: list[dict]) -> tuple[list[dict], list[dict]]:
        """(rows landing now, insert rows held back for batch 2), picked with the rng."""
        if not self.late:
            return rows, []
        late = set(self.rng.sample(sorted(row["account_id"] for row in rows), self.late))
        return (
            [row for row in rows if row["account_id"] not in late],
            [row for row in rows if row["account_id"] in late],
        )

    def _insert_all(self) -> list[tuple[str, Account]]:
        changes = []
        for account_id in range(FIRST_ACCOUNT_ID, FIRST_ACCOUNT_ID + self.count):
            industry = self.rng.choice(INDUSTRIES)
            agency_id, agency_name = random_agency(self.rng)
            name = random_account_name(self.rng, industry)
            account = Account(account_id, name, agency_id, agency_name, industry)
            self.alive[account_id] = account
            changes.append(("I", account))
        return changes

    def _update_some(self) -> list[tuple[str, Account]]:
        """About 3% of live accounts change one attribute each."""
        how_many = max(1, round(0.03 * len(self.alive)))
        chosen = self.rng.sample(sorted(self.alive), min(how_many, len(self.alive)))
        changes = []
        for account_id in chosen:
            account = self.alive[account_id]
            self._change_one_attribute(account)
            # A snapshot: later changes to the account must not alter this row.
            changes.append(("U", Account(**vars(account))))
        return changes

    def _change_one_attribute(self, account: Account) -> None:
        what = self.rng.choice(("industry", "agency", "name"))
        if what == "industry":
            others = [industry for industry in INDUSTRIES if industry != account.industry]
            account.industry = self.rng.choice(others)
        elif what == "agency":
            current = (account.agency_id, account.agency_name)
            new = random_agency(self.rng)
            while new == current:
                new = random_agency(self.rng)
            account.agency_id, account.agency_name = new
        else:
            account.account_name = random_account_name(self.rng, account.industry)

    def _delete_one(self, batch: int) -> tuple[str, Account]:
        account_id = self.rng.choice(sorted(self.alive))
        self.deleted_in[account_id] = batch
        return "D", self.alive.pop(account_id)

    def _stamp(
        self, changes: list[tuple[str, Account]], window_start: datetime, window: timedelta
    ) -> list[dict]:
        """Give each change the next change_seq and a change_time that grows with it."""
        rows = []
        step = window / len(changes)
        for position, (op, account) in enumerate(changes):
            self.last_seq += 1
            moment = window_start + step * (position + self.rng.random())
            rows.append(
                {
                    "op": op,
                    "account_id": account.account_id,
                    "account_name": account.account_name,
                    "agency_id": account.agency_id,
                    "agency_name": account.agency_name,
                    "industry": account.industry,
                    "change_time": format_change_time(moment),
                    "change_seq": self.last_seq,
                }
            )
        return rows

    def _mess_up(self, rows: list[dict]) -> list[dict]:
        """Repeat a few rows exactly and shuffle the file: the feed does both."""
        repeats = max(1, len(rows) // 50)
        rows = rows + [self.rng.choice(rows) for _ in range(repeats)]
        self.rng.shuffle(rows)
        return rows


# --- Dimensions -------------------------------------------------------------------


@dataclass
class Dimensions:
    media: list[dict]
    campaigns: list[dict]
    ads: list[dict]
    # ad_id -> (ad_id, campaign_id, account_id, billing_type): what an event needs.
    ad_chain: dict[int, tuple[int, int, int, str]]


def build_dimensions(rng: random.Random, account_ids: list[int]) -> Dimensions:
    media = [
        {"media_id": media_id, "media_name": name, "media_type": media_type}
        for media_id, (name, media_type) in enumerate(MEDIA, start=1)
    ]
    campaigns, ads, ad_chain = [], [], {}
    campaign_id, ad_id = 10_000, 100_000
    for account_id in account_ids:
        for _ in range(rng.randint(2, 4)):
            campaign_id += 1
            objective = rng.choice(OBJECTIVES)
            campaigns.append(
                {
                    "campaign_id": campaign_id,
                    "account_id": account_id,
                    "campaign_name": f"{objective.title()} campaign {campaign_id}",
                    "objective": objective,
                }
            )
            for _ in range(rng.randint(1, 3)):
                ad_id += 1
                # Fewer oCPM ads: it is the newer, pricier way to buy.
                billing_type = rng.choices(("CPC", "CPM", "oCPM"), weights=(4, 4, 2))[0]
                ads.append(
                    {
                        "ad_id": ad_id,
                        "campaign_id": campaign_id,
                        "ad_name": f"Ad {ad_id} ({billing_type})",
                        "billing_type": billing_type,
                    }
                )
                ad_chain[ad_id] = (ad_id, campaign_id, account_id, billing_type)
    return Dimensions(media, campaigns, ads, ad_chain)


def write_dimensions(out: Path, dims: Dimensions) -> None:
    write_jsonl(out / "dimensions" / "media.jsonl", dims.media)
    write_jsonl(out / "dimensions" / "campaigns.jsonl", dims.campaigns)
    write_jsonl(out / "dimensions" / "ads.jsonl", dims.ads)


# --- Batch plan ---------------------------------------------------------------------


def plan_batch(rng: random.Random, lines: int, batch: int) -> bytearray:
    """The kind of every line of a batch, decided up front.

    Fixed counts (not a coin toss per line) guarantee each kind shows up in
    every batch, which is what makes the data a reliable test fixture."""
    counts = []
    for kind, share in KIND_SHARES:
        if kind == STALE and batch == 1:
            continue  # nothing has been corrected in an earlier batch yet
        counts.append((kind, max(1, round(share * lines))))
    special = min(lines, sum(count for _, count in counts))
    positions = rng.sample(range(lines), special)
    plan = bytearray(lines)  # all FRESH
    taken = 0
    for kind, count in counts:
        for position in positions[taken : taken + count]:
            plan[position] = kind
        taken += count
    return plan


# --- Events -------------------------------------------------------------------------


class EventMaker:
    """Makes the event lines of each batch and remembers what later lines copy.

    `recent` holds the latest version of recently emitted valid events (for
    duplicates and corrections); `stale` holds versions replaced by corrections
    of earlier batches (to arrive late); `replaced` collects this batch's
    replaced versions, which become stale candidates once the batch is over."""

    def __init__(self, rng: random.Random, dims: Dimensions, accounts: AccountBook):
        self.rng = rng
        self.dims = dims
        self.accounts = accounts
        self.media_ids = [row["media_id"] for row in dims.media]
        self.next_serial = 1
        self.recent: deque[dict] = deque(maxlen=RECENT_POOL_SIZE)
        self.stale: list[dict] = []
        self.replaced: list[dict] = []
        self.live_ads: list[tuple[int, int, int, str]] = []
        self.deleted_ads: list[
            tuple[int, int, int, str]
        ] = []  # of accounts deleted in earlier batches
        self.turns: dict[int, int] = {}  # kind -> lines made so far, for kinds that take turns
        self.spoilers = {
            BROKEN_JSON: self._cut_in_half,
            BAD_ENCODING: self._insert_invalid_byte,
            MISSING_KEY: self._drop_key,
            WRONG_TYPE: self._mistype,
            BAD_VALUE: self._spoil_value,
            NEGATIVE_COST: self._negate_cost,
            COST_OUT_OF_RANGE: self._inflate_cost,
            TIME_OUT_OF_RANGE: self._misdate,
        }
        self.window_start = datetime.min
        self.window = timedelta(0)
        self.slot = timedelta(0)  # the share of the window one line position covers

    # Batch boundaries

    def start_batch(
        self, batch: int, window_start: datetime, window: timedelta, lines: int
    ) -> None:
        """Forget everything about accounts deleted by now, so no line of this
        batch (new or copied) is about them, except the deleted_account lines."""
        self.window_start, self.window, self.slot = window_start, window, window / lines
        alive = self.accounts.alive
        self.live_ads = [chain for chain in self.dims.ad_chain.values() if chain[2] in alive]
        # Only deletes of earlier batches: their change_time is before this
        # window, so any event timed in it is after the delete.
        deleted = {
            account
            for account, deleted_in in self.accounts.deleted_in.items()
            if deleted_in < batch
        }
        self.deleted_ads = [chain for chain in self.dims.ad_chain.values() if chain[2] in deleted]
        self.recent = deque(
            (event for event in self.recent if event["account_id"] in alive),
            maxlen=RECENT_POOL_SIZE,
        )
        self.stale = [event for event in self.stale if event["account_id"] in alive]

    def end_batch(self) -> None:
        """Versions replaced in this batch may arrive stale from the next batch on."""
        self.stale.extend(self.replaced)
        self.replaced = []
        del self.stale[:-STALE_POOL_SIZE]

    # One line

    def make_line(self, kind: int, position: int) -> tuple[bytes, dict | None, str | None]:
        """Returns (line bytes, event, reason): the reason when the line itself
        is defective (rules 1-8), else the event, whose account the truth judges."""
        if kind in MALFORMED_KINDS:
            return self._malformed(kind, position)
        if kind == DUPLICATE:
            event = self._duplicate()
        elif kind == CORRECTION:
            event = self._correction()
        elif kind == STALE:
            event = self._stale_version()
        else:
            event = None
        if event is None:  # a fresh event, or a copy with nothing to copy
            event = self._fresh(kind, position)
        return encode_line(event), event, None

    def _fresh(self, kind: int, position: int) -> dict:
        event = self._new_event(self._event_time(kind, position), self.live_ads)
        self.recent.append(event)
        return event

    def _duplicate(self) -> dict | None:
        if not self.recent:
            return None
        return self.recent[self.rng.randrange(len(self.recent))]

    def _correction(self) -> dict | None:
        """Re-price a recent billable event. Only events that cost something
        are corrected: a correction of a free impression would be implausible."""
        if not self.recent:
            return None
        # About 40% of events are billable, so 20 tries all but never miss.
        for _ in range(20):
            slot = self.rng.randrange(len(self.recent))
            old = self.recent[slot]
            if old["cost_micros"] > 0:
                break
        else:
            return None
        new = dict(
            old,
            event_version=old["event_version"] + 1,
            cost_micros=self._new_price(old["cost_micros"]),
        )
        self.recent[slot] = new  # later duplicates copy the current version
        self.replaced.append(old)
        return new

    def _new_price(self, cost: int) -> int:
        """50% to 150% of the old price, never the same (a correction changes the cost)."""
        new = cost * self.rng.randint(50, 150) // 100
        return new if new != cost else cost // 2

    def _stale_version(self) -> dict | None:
        if not self.stale:
            return None
        # Taken out, so the same stale version is not sent twice on purpose.
        return self.stale.pop(self.rng.randrange(len(self.stale)))

    def _malformed(self, kind: int, position: int) -> tuple[bytes, dict | None, str | None]:
        """A fresh event (own event id) that must not be billed as it lands."""
        if kind == DELETED_ACCOUNT and not self.deleted_ads:
            kind = self.rng.choice(DELETED_ACCOUNT_STAND_INS)  # no account is deleted yet
        event_time = self._event_time(FRESH, position)
        if kind == DELETED_ACCOUNT:
            event = self._new_event(event_time, self.deleted_ads)
            return encode_line(event), event, None
        event = self._new_event(event_time, self.live_ads)
        if kind == UNKNOWN_ACCOUNT:
            event["account_id"] = UNKNOWN_ACCOUNT_BASE + self.rng.randrange(1000)
            return encode_line(event), event, None
        return self.spoilers[kind](event), None, LINE_DEFECTS[kind]

    def _take_turn(self, kind: int) -> int:
        """How many lines of this kind came before: for variants that alternate."""
        turn = self.turns.get(kind, 0)
        self.turns[kind] = turn + 1
        return turn

    # Line defects: each spoils a fresh event and returns its line.

    def _cut_in_half(self, event: dict) -> bytes:
        line = encode_line(event)
        return line[: len(line) // 2]  # an unclosed object never parses

    def _insert_invalid_byte(self, event: dict) -> bytes:
        """The line stays a JSON object once decoded (the byte reads as U+FFFD
        inside a string), so only the encoding check catches it."""
        key = self.rng.choice(TEXT_KEYS)
        line = encode_line(event)
        # Values are plain ASCII without escapes, so the value's bytes follow `"key":"`.
        value_start = line.index(f'"{key}":"'.encode()) + len(key) + 4
        cut = value_start + self.rng.randrange(len(event[key]) + 1)
        return line[:cut] + self.rng.choice(INVALID_UTF8_BYTES) + line[cut:]

    def _drop_key(self, event: dict) -> bytes:
        del event[self.rng.choice(DROPPABLE_KEYS)]
        return encode_line(event)

    def _mistype(self, event: dict) -> bytes:
        """In turn, a text key written as a number and a number key as a string."""
        if self._take_turn(WRONG_TYPE) % 2 == 0:
            key = self.rng.choice(TEXT_KEYS)
            event[key] = self._as_number(key, event[key])
        else:
            key = self.rng.choice(NUMBER_KEYS)
            event[key] = str(event[key])  # "1234": digits, but a JSON string
        return encode_line(event)

    def _as_number(self, key: str, value: str) -> int:
        """What a text key would plausibly be as a number in a sloppy producer."""
        if key == "event_id":
            return int(value[1:], 16)  # the serial behind "e" + hex
        if key == "event_type":
            return EVENT_TYPES.index(value) + 1
        if key == "billing_type":
            return BILLING_TYPES.index(value) + 1
        return int((datetime.fromisoformat(value) - EPOCH).total_seconds())  # event_time

    def _spoil_value(self, event: dict) -> bytes:
        """In turn: a null, an unreadable time, an unknown event type, an unknown billing type."""
        turn = self._take_turn(BAD_VALUE) % 4
        if turn == 0:
            event[self.rng.choice(EVENT_KEYS)] = None
        elif turn == 1:
            event["event_time"] = self.rng.choice(UNREADABLE_TIMES)
        elif turn == 2:
            event["event_type"] = self.rng.choice(UNKNOWN_EVENT_TYPES)
        else:
            event["billing_type"] = self.rng.choice(UNKNOWN_BILLING_TYPES)
        return encode_line(event)

    def _negate_cost(self, event: dict) -> bytes:
        event["cost_micros"] = -self.rng.randint(1, 2_000_000)
        return encode_line(event)

    def _inflate_cost(self, event: dict) -> bytes:
        event["cost_micros"] = self.rng.randint(*OUT_OF_RANGE_COSTS)
        return encode_line(event)

    def _misdate(self, event: dict) -> bytes:
        """A time in 1970 or, in turn, 2100: both readable, neither plausible."""
        year = OUT_OF_RANGE_YEARS[self._take_turn(TIME_OUT_OF_RANGE) % len(OUT_OF_RANGE_YEARS)]
        moment = datetime(year, 1, 1) + self._random_duration(timedelta(0), timedelta(days=364))
        event["event_time"] = format_event_time(moment)
        return encode_line(event)

    # Building blocks

    def _new_event(self, event_time: datetime, ads: list[tuple[int, int, int, str]]) -> dict:
        """A new event id on an ad picked from `ads` (live_ads but for deleted_account lines)."""
        ad_id, campaign_id, account_id, billing_type = self.rng.choice(ads)
        event_type = self._event_type()
        event = {
            "event_id": f"e{self.next_serial:012x}",
            "event_version": 1,
            "event_type": event_type,
            "event_time": format_event_time(event_time),
            "account_id": account_id,
            "campaign_id": campaign_id,
            "ad_id": ad_id,
            "media_id": self.rng.choice(self.media_ids),
            "billing_type": billing_type,
            "cost_micros": self._price(event_type, billing_type),
        }
        self.next_serial += 1
        return event

    def _event_type(self) -> str:
        draw = self.rng.random()
        if draw < 0.85:
            return "impression"
        if draw < 0.97:
            return "click"
        return "conversion"

    def _price(self, event_type: str, billing_type: str) -> int:
        billed_type, low, high = BILLED_EVENT[billing_type]
        if event_type != billed_type:
            return 0
        return self.rng.randint(low, high)

    def _event_time(self, kind: int, position: int) -> datetime:
        """In-order events advance through the window with the line position;
        late and out-of-order ones fall before the window."""
        if kind == LATE:
            lateness = self._random_duration(MIN_LATENESS, MAX_LATENESS)
            return self.window_start - lateness
        if kind == OUT_OF_ORDER:
            # Within the previous batch's window, but never later than 72 hours.
            lateness = self._random_duration(
                timedelta(microseconds=1), min(self.window, MAX_LATENESS)
            )
            return self.window_start - lateness
        return self.window_start + self.slot * (position + self.rng.random())

    def _random_duration(self, low: timedelta, high: timedelta) -> timedelta:
        """Uniform in [low, high], to the microsecond."""
        micros = self.rng.randint(
            low // timedelta(microseconds=1), high // timedelta(microseconds=1)
        )
        return timedelta(microseconds=micros)


# --- Truth ----------------------------------------------------------------------------


# What rules 9 and 10 make of a line that passed rules 1-8, besides deleted_account.
VALID, HELD = "valid", "held"


class LandedAccounts:
    """The account feed as the warehouse has landed it so far: what rules 9
    and 10, cost_by_industry and accounts_current go by."""

    def __init__(self):
        self.inserted: set[int] = set()
        self.latest: dict[
            int, dict
        ] = {}  # account_id -> its landed row with the highest change_seq

    def land(self, rows: list[dict]) -> None:
        """Repeated rows and any row order give the same state: change_seq decides."""
        for row in rows:
            account_id = row["account_id"]
            if row["op"] == "I":
                self.inserted.add(account_id)
            latest = self.latest.get(account_id)
            if latest is None or row["change_seq"] > latest["change_seq"]:
                self.latest[account_id] = row

    def verdict(self, event: dict) -> str:
        """VALID, HELD or "deleted_account" for a line that passed rules 1-8."""
        account_id = event["account_id"]
        if account_id not in self.inserted:
            return HELD
        latest = self.latest[account_id]
        # Parsed, not compared as text: change_time has no fraction of a second.
        if latest["op"] == "D" and (
            datetime.fromisoformat(latest["change_time"])
            <= datetime.fromisoformat(event["event_time"])
        ):
            return "deleted_account"
        return VALID

    def industry_of(self, account_id: int) -> str:
        """The current industry, "unknown" once the account is deleted."""
        latest = self.latest[account_id]
        return "unknown" if latest["op"] == "D" else latest["industry"]

    def current(self) -> int:
        return sum(row["op"] != "D" for row in self.latest.values())


class Truth:
    """The figures a correct warehouse shows, kept up to date line by line.

    Per event id it keeps only (version, cost) of the winning version; totals
    are adjusted as versions win, so closing a batch costs a pass over the
    accounts, not over the events. Held lines are kept whole until released."""

    def __init__(self):
        self.accounts = LandedAccounts()
        self.winners: dict[str, tuple[int, int]] = {}
        self.cost_by_account: dict[int, int] = {}
        self.type_counts = {event_type: 0 for event_type in EVENT_TYPES}
        self.landed_lines = 0
        self.valid_lines = 0
        self.malformed = {reason: 0 for reason in QUARANTINE_REASONS}
        self.held: list[dict] = []
        self.account_change_lines = 0
        self.batches: list[dict] = []

    def land_changes(self, rows: list[dict]) -> None:
        """A batch's account changes land (before its event lines), and every
        held line is judged again against the new state."""
        self.account_change_lines += len(rows)
        self.accounts.land(rows)
        held, self.held = self.held, []
        for event in held:
            self._judge(event)

    def add_line(self, event: dict | None, reason: str | None) -> None:
        """One landed event line, as EventMaker.make_line describes it."""
        self.landed_lines += 1
        if reason is not None:
            self.malformed[reason] += 1
        else:
            self._judge(event)

    def _judge(self, event: dict) -> None:
        verdict = self.accounts.verdict(event)
        if verdict == VALID:
            self._add_valid(event)
        elif verdict == HELD:
            self.held.append(event)
        else:
            self.malformed[verdict] += 1

    def _add_valid(self, event: dict) -> None:
        """Apply one valid line: the highest version per event id wins."""
        self.valid_lines += 1
        event_id, version, cost = event["event_id"], event["event_version"], event["cost_micros"]
        winner = self.winners.get(event_id)
        if winner is None:
            self.type_counts[event["event_type"]] += 1
            old_cost = 0
        elif version > winner[0]:
            old_cost = winner[1]
        else:
            return  # a duplicate or a stale version: changes nothing
        self.winners[event_id] = (version, cost)
        account_id = event["account_id"]
        self.cost_by_account[account_id] = self.cost_by_account.get(account_id, 0) + cost - old_cost

    def close_batch(self, batch: int) -> None:
        self.batches.append(
            {
                "batch": batch,
                "landed_event_lines": self.landed_lines,
                "malformed": dict(self.malformed),
                "valid_event_lines": self.valid_lines,
                "held_event_lines": len(self.held),
                "events": len(self.winners),
                "cost_micros": sum(self.cost_by_account.values()),
                "impressions": self.type_counts["impression"],
                "clicks": self.type_counts["click"],
                "conversions": self.type_counts["conversion"],
                "cost_by_industry": self._cost_by_industry(),
                "account_change_lines": self.account_change_lines,
                "accounts_current": self.accounts.current(),
            }
        )

    def _cost_by_industry(self) -> dict[str, int]:
        """Industry as of now, not as of the event: that is what the report shows."""
        totals: dict[str, int] = {}
        for account_id, cost in self.cost_by_account.items():
            industry = self.accounts.industry_of(account_id)
            totals[industry] = totals.get(industry, 0) + cost
        return dict(sorted(totals.items()))


# --- Output folder ------------------------------------------------------------------

OUTPUT_ENTRIES = ("dimensions", "account_changes", "billing_events", "truth.json")


def prepare_out(out: Path, force: bool) -> None:
    """Refuse to mix a new run into existing files, unless forced.

    With force, only this generator's own outputs are removed: a mistyped
    --out (say, a home folder) loses nothing else. Leftovers of an earlier,
    longer run would otherwise survive as extra batches."""
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"--out {out} is a file, not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise FileExistsError(
                f"--out {out} is not empty; use --force to replace a previous output"
            )
        for name in OUTPUT_ENTRIES:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    out.mkdir(parents=True, exist_ok=True)


def check_params(
    events: int, batches: int, accounts: int, late_accounts: int, batch_minutes: int
) -> None:
    if batches < 1 or batch_minutes < 1:
        raise ValueError("--batches and --batch-minutes must be at least 1")
    if events < batches:
        raise ValueError("--events must be at least --batches (every batch needs a line)")
    if not 2 <= accounts <= MAX_ACCOUNTS:
        raise ValueError(f"--accounts must be between 2 and {MAX_ACCOUNTS}")
    # At least one account must land on time: batch 1's change file is never empty.
    if not 0 <= late_accounts < accounts:
        raise ValueError("--late-accounts must be between 0 and --accounts - 1")


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to it."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


# --- The run ----------------------------------------------------------------------------


def write_event_batch(
    path: Path, maker: EventMaker, truth: Truth, plan: bytearray, rng: random.Random
) -> None:
    """Stream one batch's lines into its two files, each line to either at random.

    Binary files: a bad_encoding line is bytes that no text encoding would write."""
    path.mkdir(parents=True, exist_ok=True)
    with (
        open(path / "part-0000.jsonl", "wb", buffering=1 << 20) as first,
        open(path / "part-0001.jsonl", "wb", buffering=1 << 20) as second,
    ):
        files = (first, second)
        for position, kind in enumerate(plan):
            line, event, reason = maker.make_line(kind, position)
            files[rng.getrandbits(1)].write(line + b"\n")
            truth.add_line(event, reason)


def generate(
    out: Path,
    seed: int = 7,
    events: int = 10_000,
    batches: int = 6,
    accounts: int = 200,
    late_accounts: int = 2,
    start: datetime = datetime(2026, 11, 20),
    batch_minutes: int = 480,
    force: bool = False,
) -> dict:
    """Write the whole data set into `out` and return the truth (also in truth.json)."""
    out = Path(out)
    check_params(events, batches, accounts, late_accounts, batch_minutes)
    prepare_out(out, force)
    start = as_utc(start)
    window = timedelta(minutes=batch_minutes)
    rng = random.Random(seed)

    # An insert can only land late if there is a batch 2 for it to land in.
    book = AccountBook(rng, accounts, late=late_accounts if batches >= 2 else 0)
    account_ids = list(range(FIRST_ACCOUNT_ID, FIRST_ACCOUNT_ID + accounts))
    dims = build_dimensions(rng, account_ids)
    write_dimensions(out, dims)
    maker = EventMaker(rng, dims, book)
    truth = Truth()

    for batch, lines in enumerate(lines_per_batch(events, batches), start=1):
        window_start = start + window * (batch - 1)
        changes = book.changes_for_batch(batch, window_start, window)
        write_jsonl(out / "account_changes" / batch_name(batch) / "part-0000.jsonl", changes)
        truth.land_changes(changes)

        maker.start_batch(batch, window_start, window, lines)
        plan = plan_batch(rng, lines, batch)
        write_event_batch(out / "billing_events" / batch_name(batch), maker, truth, plan, rng)
        maker.end_batch()
        truth.close_batch(batch)

    result = {
        "batches": truth.batches,
        "params": {
            "seed": seed,
            "events": events,
            "batches": batches,
            "accounts": accounts,
            "late_accounts": late_accounts,
            "start": start.isoformat(),
            "batch_minutes": batch_minutes,
        },
    }
    (out / "truth.json").write_text(json.dumps(result) + "\n", encoding="utf-8", newline="\n")
    return result


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Generate deterministic, messy billing source data."
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="output folder (must be empty unless --force)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--events", type=int, default=10_000, help="event lines over all batches")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument(
        "--late-accounts",
        type=int,
        default=2,
        help="accounts whose batch 1 insert lands in batch 2 instead (0: none)",
    )
    parser.add_argument(
        "--start",
        type=datetime.fromisoformat,
        default=datetime(2026, 11, 20),
        help="start of batch 1's window, UTC (default 2026-11-20T00:00:00)",
    )
    parser.add_argument("--batch-minutes", type=int, default=480, help="length of a batch window")
    parser.add_argument("--force", action="store_true", help="replace a previous output in --out")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    began = time.perf_counter()
    try:
        generate(
            args.out,
            seed=args.seed,
            events=args.events,
            batches=args.batches,
            accounts=args.accounts,
            late_accounts=args.late_accounts,
            start=args.start,
            batch_minutes=args.batch_minutes,
            force=args.force,
        )
    except (FileExistsError, ValueError) as error:
        print(f"generate_billing: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - began
    print(
        f"wrote {args.events} event lines in {args.batches} batches to {args.out} "
        f"in {elapsed:.1f} s ({args.events / elapsed:,.0f} events/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
