"""The advertisers' accounts and their change feed (CDC): batch 1 inserts
them all (a few land late, in batch 2), later batches update some and delete
one every other batch. See "Account changes (CDC)" in adlake.generator's
docstring."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from adlake.generator.common import format_change_time
from adlake.generator.mess import repeat_and_shuffle

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
MAX_ACCOUNTS = 100_000


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
            # The late inserts come first only in the list: repeat_and_shuffle shuffles.
            rows = self.deferred + self._stamp(changes, window_start, window)
            self.deferred = []
        return repeat_and_shuffle(self.rng, rows)

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
