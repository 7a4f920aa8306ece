"""The event lines of each batch: fresh events in time order, late and out of
order ones, exact duplicates, corrections and stale versions, and (made with
adlake.generator.mess) the lines the warehouse must not bill. See "Billing
events" in adlake.generator's docstring."""

from __future__ import annotations

import random
from collections import deque
from datetime import datetime, timedelta

from adlake.generator.accounts import AccountBook
from adlake.generator.common import encode_line, format_event_time, random_duration
from adlake.generator.dimensions import Dimensions
from adlake.generator.mess import DELETED_ACCOUNT_STAND_INS, UNKNOWN_ACCOUNT_BASE, Spoiler
from adlake.generator.plan import (
    CORRECTION,
    DELETED_ACCOUNT,
    DUPLICATE,
    FRESH,
    LATE,
    MALFORMED_KINDS,
    OUT_OF_ORDER,
    STALE,
    UNKNOWN_ACCOUNT,
)

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
        # The ads of accounts deleted in earlier batches, for deleted_account lines.
        self.deleted_ads: list[tuple[int, int, int, str]] = []
        self.spoiler = Spoiler(rng)
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
        line, reason = self.spoiler.spoil(kind, event)
        return line, None, reason

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
            lateness = random_duration(self.rng, MIN_LATENESS, MAX_LATENESS)
            return self.window_start - lateness
        if kind == OUT_OF_ORDER:
            # Within the previous batch's window, but never later than 72 hours.
            lateness = random_duration(
                self.rng, timedelta(microseconds=1), min(self.window, MAX_LATENESS)
            )
            return self.window_start - lateness
        return self.window_start + self.slot * (position + self.rng.random())
