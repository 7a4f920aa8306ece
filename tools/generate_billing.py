"""Generate deterministic, deliberately messy source data for the billing warehouse.

The warehouse ingests three feeds: static dimensions, billing events landing as
micro-batches of JSON-lines files, and account changes as CDC batches. Real
feeds are messy, so every batch mixes in duplicates, out-of-order and late
events, corrections, stale versions and malformed lines: a pipeline that
ignores any of them gets the figures wrong. Alongside the data the generator
writes `truth.json`, the figures a correct warehouse must show after each
batch, computed here in Python (no SQL), for tests to reconcile against.

    python tools/generate_billing.py --out DIR [--seed 7] [--events 10000]
        [--batches 6] [--accounts 200] [--start 2026-11-20T00:00:00]
        [--batch-minutes 480] [--force]

or, from Python, `generate(out, seed=7, events=10_000, ...)`, which returns the
truth dict. The same seed and parameters give byte-identical files: the only
source of randomness is one `random.Random(seed)`, and nothing depends on the
clock or on the order of a set. Lines are written as they are made; what is
kept in memory is bounded, except the truth's (version, cost) per event id.

--out must be empty or not exist yet. With --force, a previous output (the
four entries below) is removed first; anything else in the folder is left
alone, so a mistyped --out loses nothing but an earlier generated data set.

Layout
------
All times are UTC; every file is JSON lines (one object per line, `\\n` endings);
batch numbers are 1-based and zero-padded to 6 digits::

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
account changes: an account deleted in batch b gets no new events, duplicates,
corrections or stale versions from batch b on (its earlier events stay valid).

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
- 1% malformed lines, 0.25% each of: broken_json (a valid line cut in half),
  missing_key (no event_id, account_id, cost_micros or event_time),
  negative_cost (cost_micros < 0) and unknown_account (account_id from
  999000 up, never an account). Malformed lines take fresh event ids, so they
  never share an id with a valid line.

If a duplicate, correction or stale version has nothing to copy (say, at the
very start of batch 1), that line is a fresh event instead.

truth.json
----------
`batches` holds one entry per batch with cumulative figures through it, by
these rules. A line is valid iff it parses as JSON, has all 10 keys, its
cost_micros is an int >= 0 and its account_id is an account inserted by then.
Per event_id the highest event_version among valid lines wins (a duplicate
changes nothing, a stale version never wins).

- landed_event_lines = valid_event_lines + all malformed lines;
- malformed: lines per reason;
- events, cost_micros, impressions, clicks, conversions: over deduplicated events;
- cost_by_industry: deduplicated cost by the industry of the event's account
  in the latest CDC state, "unknown" for an account deleted by then; it lists
  the groups that have at least one event;
- account_change_lines: CDC rows landed (duplicates included);
- accounts_current: accounts alive after applying the CDC rows deduplicated by
  change_seq.

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
from datetime import datetime, timedelta, timezone
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
    "Northwind", "Contoso", "Fabrikam", "Litware", "Adatum", "Tailspin", "Wingtip", "Proseware",
    "Lucerne", "Woodgrove", "Alpine", "Coho", "Bluebird", "Granite", "Maple", "Silverline",
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

MAX_LATENESS = timedelta(hours=72)
MIN_LATENESS = timedelta(minutes=1)

# How much of the recent past duplicates and corrections copy from, and how
# many replaced versions are kept around to arrive stale later. Bounded, so
# memory does not grow with --events.
RECENT_POOL_SIZE = 4096
STALE_POOL_SIZE = 4096

# Line kinds of a batch plan. FRESH is the default: a new event in time order.
FRESH, LATE, OUT_OF_ORDER, DUPLICATE, CORRECTION, STALE = range(6)
BROKEN_JSON, MISSING_KEY, NEGATIVE_COST, UNKNOWN_ACCOUNT = range(6, 10)
MALFORMED_REASONS = {
    BROKEN_JSON: "broken_json",
    MISSING_KEY: "missing_key",
    NEGATIVE_COST: "negative_cost",
    UNKNOWN_ACCOUNT: "unknown_account",
}
# Share of a batch's lines per special kind. Listed rarest first: if a tiny
# batch cannot hold them all, the rare kinds are the ones that still get in.
KIND_SHARES = (
    (BROKEN_JSON, 0.0025),
    (MISSING_KEY, 0.0025),
    (NEGATIVE_COST, 0.0025),
    (UNKNOWN_ACCOUNT, 0.0025),
    (STALE, 0.005),
    (CORRECTION, 0.02),
    (DUPLICATE, 0.02),
    (LATE, 0.03),
    (OUT_OF_ORDER, 0.05),
)

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
    """The accounts as the CDC feed has described them so far.

    It is both the source of the CDC rows and the state the truth uses: it
    applies changes in change_seq order, which is what deduplicating the feed
    by change_seq gives."""

    def __init__(self, rng: random.Random, count: int):
        self.rng = rng
        self.count = count
        self.alive: dict[int, Account] = {}
        self.last_seq = 0

    def industry_of(self, account_id: int) -> str | None:
        account = self.alive.get(account_id)
        return account.industry if account else None

    def changes_for_batch(self, batch: int, window_start: datetime, window: timedelta) -> list[dict]:
        """Apply this batch's changes and return its CDC file rows (shuffled, a few repeated)."""
        if batch == 1:
            changes = self._insert_all()
        else:
            changes = self._update_some()
            if batch % 2 == 0 and len(self.alive) > 1:
                changes.append(self._delete_one())
        rows = self._stamp(changes, window_start, window)
        return self._mess_up(rows)

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

    def _delete_one(self) -> tuple[str, Account]:
        account_id = self.rng.choice(sorted(self.alive))
        return "D", self.alive.pop(account_id)

    def _stamp(self, changes: list[tuple[str, Account]], window_start: datetime, window: timedelta) -> list[dict]:
        """Give each change the next change_seq and a change_time that grows with it."""
        rows = []
        step = window / len(changes)
        for position, (op, account) in enumerate(changes):
            self.last_seq += 1
            moment = window_start + step * (position + self.rng.random())
            rows.append({
                "op": op,
                "account_id": account.account_id,
                "account_name": account.account_name,
                "agency_id": account.agency_id,
                "agency_name": account.agency_name,
                "industry": account.industry,
                "change_time": format_change_time(moment),
                "change_seq": self.last_seq,
            })
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
            campaigns.append({
                "campaign_id": campaign_id,
                "account_id": account_id,
                "campaign_name": f"{objective.title()} campaign {campaign_id}",
                "objective": objective,
            })
            for _ in range(rng.randint(1, 3)):
                ad_id += 1
                # Fewer oCPM ads: it is the newer, pricier way to buy.
                billing_type = rng.choices(("CPC", "CPM", "oCPM"), weights=(4, 4, 2))[0]
                ads.append({
                    "ad_id": ad_id,
                    "campaign_id": campaign_id,
                    "ad_name": f"Ad {ad_id} ({billing_type})",
                    "billing_type": billing_type,
                })
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
        for position in positions[taken:taken + count]:
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
        self.window_start = datetime.min
        self.window = timedelta(0)
        self.slot = timedelta(0)  # the share of the window one line position covers

    # Batch boundaries

    def start_batch(self, window_start: datetime, window: timedelta, lines: int) -> None:
        """Forget everything about accounts deleted by now, so no line of this
        batch (new or copied) is about them."""
        self.window_start, self.window, self.slot = window_start, window, window / lines
        alive = self.accounts.alive
        self.live_ads = [chain for chain in self.dims.ad_chain.values() if chain[2] in alive]
        self.recent = deque((event for event in self.recent if event["account_id"] in alive),
                            maxlen=RECENT_POOL_SIZE)
        self.stale = [event for event in self.stale if event["account_id"] in alive]

    def end_batch(self) -> None:
        """Versions replaced in this batch may arrive stale from the next batch on."""
        self.stale.extend(self.replaced)
        self.replaced = []
        del self.stale[:-STALE_POOL_SIZE]

    # One line

    def make_line(self, kind: int, position: int) -> tuple[str, dict | None, str | None]:
        """Returns (line text, the record if the line is valid, malformed reason if not)."""
        if kind in MALFORMED_REASONS:
            return self._malformed(kind, position), None, MALFORMED_REASONS[kind]
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
        return ENCODER.encode(event), event, None

    def _fresh(self, kind: int, position: int) -> dict:
        event = self._new_event(self._event_time(kind, position))
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
        new = dict(old, event_version=old["event_version"] + 1, cost_micros=self._new_price(old["cost_micros"]))
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

    def _malformed(self, kind: int, position: int) -> str:
        """A fresh event (own event id) with one defect."""
        event = self._new_event(self._event_time(FRESH, position))
        if kind == BROKEN_JSON:
            text = ENCODER.encode(event)
            return text[: len(text) // 2]  # an unclosed object never parses
        if kind == MISSING_KEY:
            del event[self.rng.choice(DROPPABLE_KEYS)]
        elif kind == NEGATIVE_COST:
            event["cost_micros"] = -self.rng.randint(1, 2_000_000)
        else:
            event["account_id"] = UNKNOWN_ACCOUNT_BASE + self.rng.randrange(1000)
        return ENCODER.encode(event)

    # Building blocks

    def _new_event(self, event_time: datetime) -> dict:
        ad_id, campaign_id, account_id, billing_type = self.rng.choice(self.live_ads)
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
            lateness = self._random_duration(timedelta(microseconds=1), min(self.window, MAX_LATENESS))
            return self.window_start - lateness
        return self.window_start + self.slot * (position + self.rng.random())

    def _random_duration(self, low: timedelta, high: timedelta) -> timedelta:
        """Uniform in [low, high], to the microsecond."""
        micros = self.rng.randint(low // timedelta(microseconds=1), high // timedelta(microseconds=1))
        return timedelta(microseconds=micros)


# --- Truth ----------------------------------------------------------------------------


class Truth:
    """The figures a correct warehouse shows, kept up to date line by line.

    Per event id it keeps only (version, cost) of the winning version; totals
    are adjusted as versions win, so closing a batch costs a pass over the
    accounts, not over the events."""

    def __init__(self, accounts: AccountBook):
        self.accounts = accounts
        self.winners: dict[str, tuple[int, int]] = {}
        self.cost_by_account: dict[int, int] = {}
        self.type_counts = {"impression": 0, "click": 0, "conversion": 0}
        self.valid_lines = 0
        self.malformed = {reason: 0 for reason in MALFORMED_REASONS.values()}
        self.account_change_lines = 0
        self.batches: list[dict] = []

    def add_valid(self, event: dict) -> None:
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

    def add_malformed(self, reason: str) -> None:
        self.malformed[reason] += 1

    def close_batch(self, batch: int) -> None:
        self.batches.append({
            "batch": batch,
            "landed_event_lines": self.valid_lines + sum(self.malformed.values()),
            "malformed": dict(self.malformed),
            "valid_event_lines": self.valid_lines,
            "events": len(self.winners),
            "cost_micros": sum(self.cost_by_account.values()),
            "impressions": self.type_counts["impression"],
            "clicks": self.type_counts["click"],
            "conversions": self.type_counts["conversion"],
            "cost_by_industry": self._cost_by_industry(),
            "account_change_lines": self.account_change_lines,
            "accounts_current": len(self.accounts.alive),
        })

    def _cost_by_industry(self) -> dict[str, int]:
        """Industry as of now, not as of the event: that is what the report shows."""
        totals: dict[str, int] = {}
        for account_id, cost in self.cost_by_account.items():
            industry = self.accounts.industry_of(account_id) or "unknown"
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
            raise FileExistsError(f"--out {out} is not empty; use --force to replace a previous output")
        for name in OUTPUT_ENTRIES:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    out.mkdir(parents=True, exist_ok=True)


def check_params(events: int, batches: int, accounts: int, batch_minutes: int) -> None:
    if batches < 1 or batch_minutes < 1:
        raise ValueError("--batches and --batch-minutes must be at least 1")
    if events < batches:
        raise ValueError("--events must be at least --batches (every batch needs a line)")
    if not 2 <= accounts <= MAX_ACCOUNTS:
        raise ValueError(f"--accounts must be between 2 and {MAX_ACCOUNTS}")


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to it."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


# --- The run ----------------------------------------------------------------------------


def write_event_batch(path: Path, maker: EventMaker, truth: Truth, plan: bytearray, rng: random.Random) -> None:
    """Stream one batch's lines into its two files, each line to either at random."""
    path.mkdir(parents=True, exist_ok=True)
    with (
        open(path / "part-0000.jsonl", "w", encoding="utf-8", newline="\n", buffering=1 << 20) as first,
        open(path / "part-0001.jsonl", "w", encoding="utf-8", newline="\n", buffering=1 << 20) as second,
    ):
        files = (first, second)
        for position, kind in enumerate(plan):
            text, event, reason = maker.make_line(kind, position)
            files[rng.getrandbits(1)].write(text + "\n")
            if event is None:
                truth.add_malformed(reason)
            else:
                truth.add_valid(event)


def generate(out: Path, seed: int = 7, events: int = 10_000, batches: int = 6, accounts: int = 200,
             start: datetime = datetime(2026, 11, 20), batch_minutes: int = 480, force: bool = False) -> dict:
    """Write the whole data set into `out` and return the truth (also in truth.json)."""
    out = Path(out)
    check_params(events, batches, accounts, batch_minutes)
    prepare_out(out, force)
    start = as_utc(start)
    window = timedelta(minutes=batch_minutes)
    rng = random.Random(seed)

    book = AccountBook(rng, accounts)
    account_ids = list(range(FIRST_ACCOUNT_ID, FIRST_ACCOUNT_ID + accounts))
    dims = build_dimensions(rng, account_ids)
    write_dimensions(out, dims)
    maker = EventMaker(rng, dims, book)
    truth = Truth(book)

    for batch, lines in enumerate(lines_per_batch(events, batches), start=1):
        window_start = start + window * (batch - 1)
        changes = book.changes_for_batch(batch, window_start, window)
        write_jsonl(out / "account_changes" / batch_name(batch) / "part-0000.jsonl", changes)
        truth.account_change_lines += len(changes)

        maker.start_batch(window_start, window, lines)
        plan = plan_batch(rng, lines, batch)
        write_event_batch(out / "billing_events" / batch_name(batch), maker, truth, plan, rng)
        maker.end_batch()
        truth.close_batch(batch)

    result = {
        "batches": truth.batches,
        "params": {"seed": seed, "events": events, "batches": batches, "accounts": accounts,
                   "start": start.isoformat(), "batch_minutes": batch_minutes},
    }
    (out / "truth.json").write_text(json.dumps(result) + "\n", encoding="utf-8", newline="\n")
    return result


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Generate deterministic, messy billing source data.")
    parser.add_argument("--out", type=Path, required=True, help="output folder (must be empty unless --force)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--events", type=int, default=10_000, help="event lines over all batches")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument("--start", type=datetime.fromisoformat, default=datetime(2026, 11, 20),
                        help="start of batch 1's window, UTC (default 2026-11-20T00:00:00)")
    parser.add_argument("--batch-minutes", type=int, default=480, help="length of a batch window")
    parser.add_argument("--force", action="store_true", help="replace a previous output in --out")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    began = time.perf_counter()
    try:
        generate(args.out, seed=args.seed, events=args.events, batches=args.batches, accounts=args.accounts,
                 start=args.start, batch_minutes=args.batch_minutes, force=args.force)
    except (FileExistsError, ValueError) as error:
        print(f"generate_billing: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - began
    print(f"wrote {args.events} event lines in {args.batches} batches to {args.out} "
          f"in {elapsed:.1f} s ({args.events / elapsed:,.0f} events/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
