"""Continuous mode's Cadence: an idle check starts only when it ends before
the next batch is due, or when the stream has paused; and its Checks: a
whole-table check waits for room, within bounds."""

import time
from types import SimpleNamespace

from adlake.runner.continuous import Cadence, Checks


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


def test_before_two_landings_a_check_waits_for_as_long_a_quiet_folder():
    # No gap to go by: the check starts once the folder has been quiet, since
    # the last build ended, for as long as the check should take.
    cadence = landed_ago(30)
    cadence.quiet_since = time.time() - 20
    assert cadence.fits(15) and not cadence.fits(25)


class RecordedChecks:
    """What Checks asks of Builds, recorded: the scope of each `dbt test`
    (the scheduling is this project's; dbt itself is not claimed here)."""

    checks_after_models = True
    manifest = None

    def __init__(self) -> None:
        self.scopes: list[str] = []

    def build(self, scope, command, changed_since=None):
        self.scopes.append(scope)
        return SimpleNamespace(result=SimpleNamespace(results=[]))


class NoState:
    def save(self, landed) -> None:
        pass


def checks_with_since() -> tuple[Checks, RecordedChecks]:
    builds = RecordedChecks()
    checks = Checks(builds, reader=lambda: None, every=2)
    checks.since = {"warehouse.table": "20261127000000000"}  # a process that has checked before
    return checks, builds


def test_a_due_whole_table_check_waits_while_batches_are_checked_by_what_they_wrote():
    checks, builds = checks_with_since()
    checks.want_full(4)
    assert not checks.full_overdue(5, every=4) and not checks.full_overdue(7, every=4)
    # The batches' own check runs meanwhile; the whole-table one stays due.
    checks.add({"number": 5}, {})
    checks.run(NoState(), full=False)
    assert builds.scopes == ["changed"] and checks.full_due_at == 4
    # Once it has waited as many builds again, it is overdue; run, it is done.
    assert checks.full_overdue(8, every=4)
    checks.run(NoState(), full=True)
    assert builds.scopes == ["changed", "full"] and checks.full_due_at is None


def test_a_check_estimates_from_the_last_of_its_kind_else_from_the_models():
    checks, _ = checks_with_since()
    assert checks.estimate(False, models_s=30) == 30
    assert checks.estimate(True, models_s=30) == 60
    checks.last_s, checks.last_full_s = 20, 90
    assert checks.estimate(False, models_s=30) == 20 and checks.estimate(True, models_s=30) == 90
    # Without the tables' instants a check reads whole tables: its estimate is a whole-table one.
    checks.since = {}
    assert checks.estimate(False, models_s=30) == 90


def test_pending_batches_are_checked_when_the_check_fits_else_at_twice_as_many():
    checks, _ = checks_with_since()
    checks.last_s = 35
    cadence = landed_ago(150, 90, 30)  # the next batch is due in 30 s
    checks.add({"number": 1}, {})
    assert not checks.due(cadence, models_s=30)  # one batch: not yet
    checks.add({"number": 2}, {})
    assert not checks.due(cadence, models_s=30)  # two, but 35 s would hold up the next
    checks.last_s = 25
    assert checks.due(cadence, models_s=30)  # 25 s ends before it
    checks.last_s = 35
    checks.add({"number": 3}, {})
    checks.add({"number": 4}, {})
    assert checks.due(cadence, models_s=30)  # four: whatever it holds up
