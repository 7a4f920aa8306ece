"""The kinds of line a batch holds, and how many of each: its plan, decided
before any line is made."""

from __future__ import annotations

import random

# Line kinds of a batch plan. FRESH is the default: a new event in time order.
FRESH, LATE, OUT_OF_ORDER, DUPLICATE, CORRECTION, STALE = range(6)
# Lines the warehouse must not bill as they land, one kind per reason, in the
# order of the classification rules (see adlake.generator's docstring).
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
) = tuple(range(6, 16))

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


def lines_per_batch(events: int, batches: int) -> list[int]:
    """Even split; the last batch also takes the remainder."""
    share = events // batches
    return [share] * (batches - 1) + [share + events % batches]


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
