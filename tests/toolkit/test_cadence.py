"""Continuous mode's Cadence: an idle check starts only when it ends before
the next batch is due, or when the stream has paused."""

import time

from adlake.runner.continuous import Cadence


def landed_ago(*seconds_ago: float) -> Cadence:
    """A cadence whose batches landed that many seconds ago, oldest first."""
    cadence = Cadence()
    now = time.time()
    for ago in seconds_ago:
        cadence.landed({"batch.jsonl": (1, int((now - ago) * 1e9))})
    return cadence


def test_a_check_that_ends_before_the_next_batch_is_due_starts():
    # Batches every 60 s, the last 30 s ago: the next is due in 30 s.
    assert landed_ago(150, 90, 30).fits(25)


def test_a_check_that_would_hold_up_the_next_batch_waits():
    assert not landed_ago(150, 90, 30).fits(35)


def test_with_the_next_batch_overdue_by_half_a_gap_the_stream_has_paused():
    # Due 5 s ago: it may be landing right now, so the check still waits...
    assert not landed_ago(125, 65).fits(35)
    # ...but 31 s past due (more than half the 60 s gap) nothing is coming.
    assert landed_ago(151, 91).fits(35)


def test_the_typical_gap_is_the_median_so_one_late_batch_does_not_move_it():
    # Gaps 60, 60, 200, 60: the median is 60, so the next is due 30 s from now.
    cadence = landed_ago(410, 350, 290, 90, 30)
    assert cadence.fits(29) and not cadence.fits(31)


def test_before_two_landings_or_a_first_check_anything_fits():
    assert landed_ago(30).fits(1000)
    assert landed_ago(150, 90, 30).fits(None)
