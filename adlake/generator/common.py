"""What the generator's parts share: an event's keys and types, how lines and
times are written, and drawing a duration from the one random generator."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

# The JSON type each key must have (rule 4), and the values rule 5 accepts.
TEXT_KEYS = ("event_id", "event_type", "event_time", "billing_type")
NUMBER_KEYS = ("event_version", "account_id", "campaign_id", "ad_id", "media_id", "cost_micros")
EVENT_KEYS = TEXT_KEYS + NUMBER_KEYS
EVENT_TYPES = ("impression", "click", "conversion")
BILLING_TYPES = ("CPC", "CPM", "oCPM")

# Compact separators: smaller files, and one encoder object reused for speed.
ENCODER = json.JSONEncoder(separators=(",", ":"))


def format_event_time(moment: datetime) -> str:
    """Event times carry microseconds, always all six digits."""
    return moment.isoformat(sep=" ", timespec="microseconds")


def format_change_time(moment: datetime) -> str:
    """CDC change times are to the second."""
    return moment.isoformat(sep=" ", timespec="seconds")


def batch_name(batch: int) -> str:
    return f"batch={batch:06d}"


def encode_line(event: dict) -> bytes:
    """One event as its line's bytes, without the newline. ASCII: the encoder
    escapes anything else, so the only non-ASCII bytes are bad_encoding's."""
    return ENCODER.encode(event).encode("ascii")


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            handle.write(ENCODER.encode(row) + "\n")


def random_duration(rng: random.Random, low: timedelta, high: timedelta) -> timedelta:
    """Uniform in [low, high], to the microsecond."""
    micros = rng.randint(low // timedelta(microseconds=1), high // timedelta(microseconds=1))
    return timedelta(microseconds=micros)
