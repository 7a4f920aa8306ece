"""The deliberately bad input: what spoils a line the warehouse must not bill
(rules 1-8 of adlake.generator's docstring, and the accounts of rules 9-10),
and the repeated rows and shuffled order of an account changes file."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta

from adlake.generator.common import (
    BILLING_TYPES,
    EVENT_KEYS,
    EVENT_TYPES,
    NUMBER_KEYS,
    TEXT_KEYS,
    encode_line,
    format_event_time,
    random_duration,
)
from adlake.generator.plan import (
    BAD_ENCODING,
    BAD_VALUE,
    BROKEN_JSON,
    COST_OUT_OF_RANGE,
    MISSING_KEY,
    NEGATIVE_COST,
    TIME_OUT_OF_RANGE,
    WRONG_TYPE,
)

# Far above any generated account id, so an unknown_account line can never
# accidentally name a real account.
UNKNOWN_ACCOUNT_BASE = 999_000

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
# What a deleted_account line becomes while no account has been deleted yet:
# any kind that is always possible.
DELETED_ACCOUNT_STAND_INS = tuple(LINE_DEFECTS)

# The keys a missing_key line drops (one each): the ones a pipeline needs most.
DROPPABLE_KEYS = ("event_id", "account_id", "cost_micros", "event_time")

# Bytes that are never valid in UTF-8 wherever they stand (0x80 is a
# continuation byte with nothing to continue), for bad_encoding lines.
INVALID_UTF8_BYTES = (b"\xff", b"\xfe", b"\x80")

EPOCH = datetime(1970, 1, 1)

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


def repeat_and_shuffle(rng: random.Random, rows: list[dict]) -> list[dict]:
    """Repeat a few rows exactly and shuffle the file: the feed does both."""
    repeats = max(1, len(rows) // 50)
    rows = rows + [rng.choice(rows) for _ in range(repeats)]
    rng.shuffle(rows)
    return rows


class Spoiler:
    """Spoils a fresh event with one defect of the line itself (rules 1-8) and
    returns its line. Some kinds alternate between variants: it counts the
    lines of each kind it made."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.turns: dict[int, int] = {}  # kind -> lines made so far, for kinds that take turns
        self.spoilers: dict[int, Callable[[dict], bytes]] = {
            BROKEN_JSON: self._cut_in_half,
            BAD_ENCODING: self._insert_invalid_byte,
            MISSING_KEY: self._drop_key,
            WRONG_TYPE: self._mistype,
            BAD_VALUE: self._spoil_value,
            NEGATIVE_COST: self._negate_cost,
            COST_OUT_OF_RANGE: self._inflate_cost,
            TIME_OUT_OF_RANGE: self._misdate,
        }

    def spoil(self, kind: int, event: dict) -> tuple[bytes, str]:
        """(the spoilt line, the reason a warehouse quarantines it for)."""
        return self.spoilers[kind](event), LINE_DEFECTS[kind]

    def _take_turn(self, kind: int) -> int:
        """How many lines of this kind came before: for variants that alternate."""
        turn = self.turns.get(kind, 0)
        self.turns[kind] = turn + 1
        return turn

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
        moment = datetime(year, 1, 1) + random_duration(self.rng, timedelta(0), timedelta(days=364))
        event["event_time"] = format_event_time(moment)
        return encode_line(event)
