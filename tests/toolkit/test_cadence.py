"""Continuous mode's Cadence: an idle check starts only when it ends before
the next batch is due, or when the stream has paused; and its Checks: a
whole-table check runs in pieces that fit, within bounds."""

import math
import time
from types import SimpleNamespace

import pytest

from adlake.runner.continuous import Cadence, Checks, next_piece


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


def test_before_two_landings_a_check_waits_for_twice_as_long_a_quiet_folder():
    # No gap to go by: the check starts once the folder has been quiet, since
    # the last build ended, for twice as long as the check should take.
    cadence = landed_ago(30)
    cadence.quiet_since = time.time() - 20
    assert cadence.fits(9) and not cadence.fits(11)


class RecordedChecks:
    """What Checks asks of Builds, recorded: the scope and the tests of each
    `dbt test` (the scheduling is this project's; dbt itself is not claimed
    here). Each test takes 2 s."""

    checks_after_models = True
    manifest = None
    TESTS = ["t1", "t2", "t3", "t4", "t5", "t6"]

    def __init__(self) -> None:
        self.runs: list[tuple[str, list[str] | None]] = []
        self.now = 0.0  # the clock Checks reads (monotonic seconds)
        self.wall_per_test = 0.0  # how far one test's run moves it

    def data_tests(self) -> list[str]:
        return list(self.TESTS)

    def build(self, scope, command, changed_since=None, select=None):
        self.runs.append((scope, select))
        ran = select or self.TESTS
        self.now += self.wall_per_test * len(ran)
        results = [
            SimpleNamespace(node=SimpleNamespace(name=n), execution_time=2.0, status="pass")
            for n in ran
        ]
        return SimpleNamespace(result=SimpleNamespace(results=results))


class NoState:
    def save(self, landed) -> None:
        pass


def checks_with_since() -> tuple[Checks, RecordedChecks]:
    builds = RecordedChecks()
    checks = Checks(builds, reader=lambda: None, every=2)
    checks.since = {"warehouse.table": "20261127000000000"}  # a process that has checked before
    return checks, builds


def test_a_whole_table_check_runs_in_pieces_that_fit_while_batches_are_checked_by_what_they_wrote(
    monkeypatch,
):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    checks, builds = checks_with_since()
    checks.want_full(4)
    assert checks.sweep == RecordedChecks.TESTS
    # The batches' own check runs meanwhile, and times the tests it ran.
    checks.add({"number": 5}, {})
    checks.run(NoState(), full=False)
    assert builds.runs == [("changed", None)] and checks.full_due_at == 4
    # 2 s a test on 2 cores: 1 s each. 2.5 s of room takes two tests; 0.5 s none.
    assert checks.run_piece(2.5) and builds.runs[-1] == ("full", ["t1", "t2"])
    assert not checks.run_piece(0.5) and len(builds.runs) == 2
    assert not checks.full_overdue(7, every=4) and checks.full_overdue(8, every=4)
    # Overdue: the rest at once; the whole-table check is then done.
    checks.finish_sweep()
    assert builds.runs[-1] == ("full", ["t3", "t4", "t5", "t6"])
    assert checks.full_due_at is None and checks.sweep == []


def test_a_piece_takes_the_tests_that_fit_by_their_last_times():
    seconds = {"a": 4.0, "b": 2.0}
    assert next_piece(["a", "b", "c"], seconds, room=2.5, cores=2) == (["a"], 2.0)
    # "c" was never timed: it counts as the mean of the others, 3 s.
    assert next_piece(["a", "b", "c"], seconds, room=4.5, cores=2) == (["a", "b", "c"], 4.5)
    assert next_piece(["a", "b"], seconds, room=1.5, cores=2) == ([], 0.0)
    assert next_piece(["x"], {}, room=0.5, cores=1) == ([], 0.0)  # 1 s before any timing


def sweeping_on_the_builds_clock(monkeypatch) -> tuple[Checks, RecordedChecks]:
    """Checks on 2 cores with a whole-table check due, whose clock moves only
    as the recorded builds run (wall_per_test seconds a test)."""
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    checks, builds = checks_with_since()
    monkeypatch.setattr(
        "adlake.runner.continuous.time",
        SimpleNamespace(monotonic=lambda: builds.now, time=time.time, sleep=time.sleep),
    )
    checks.want_full(4)
    return checks, builds


def test_a_piece_that_ran_longer_than_its_tests_times_said_shrinks_the_next(monkeypatch):
    checks, builds = sweeping_on_the_builds_clock(monkeypatch)
    # The batches' check timed each test at 2 s (1 s on 2 cores); read whole,
    # a test takes 1.5 s of the piece's wall time.
    checks.add({"number": 5}, {})
    checks.run(NoState(), full=False)
    builds.wall_per_test = 1.5
    assert checks.run_piece(2.5) and builds.runs[-1] == ("full", ["t1", "t2"])
    assert checks.piece_scale == 1.5
    # 4 s of room takes four tests by their times; at 1.5x, two.
    assert checks.run_piece(4.0) and builds.runs[-1] == ("full", ["t3", "t4"])
    # A piece expected to take under 2 s is mostly dbt's start: it leaves the scale.
    builds.wall_per_test = 10.0
    assert checks.run_piece(1.6) and builds.runs[-1] == ("full", ["t5"])
    assert checks.piece_scale == 1.5


def test_a_pieces_scale_is_at_most_two(monkeypatch):
    checks, builds = sweeping_on_the_builds_clock(monkeypatch)
    builds.wall_per_test = 10.0  # ten times the 1 s each test's time predicts
    assert checks.run_piece(math.inf) and checks.piece_scale == 2.0


def test_an_overdue_whole_table_check_waits_one_build_when_that_build_checked_its_batches():
    checks, builds = checks_with_since()
    checks.want_full(4)
    # Build 8 checked its batches: what is left waits for build 9.
    checks.finish_if_overdue(8, every=4, checked_batches=True)
    assert builds.runs == [] and checks.full_due_at == 4
    checks.finish_if_overdue(9, every=4, checked_batches=True)
    assert builds.runs == [("full", RecordedChecks.TESTS)] and checks.full_due_at is None


def test_an_overdue_whole_table_check_runs_at_once_after_a_build_that_checked_nothing():
    checks, builds = checks_with_since()
    checks.want_full(4)
    checks.finish_if_overdue(7, every=4, checked_batches=False)
    assert builds.runs == []  # not overdue yet
    checks.finish_if_overdue(8, every=4, checked_batches=False)
    assert builds.runs == [("full", RecordedChecks.TESTS)] and checks.full_due_at is None


def test_a_whole_table_check_of_everything_also_ends_one_in_pieces():
    checks, builds = checks_with_since()
    checks.want_full(4)
    checks.run(NoState(), full=True)
    assert builds.runs == [("full", None)]
    assert checks.full_due_at is None and checks.sweep == []


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


def test_a_failing_piece_of_a_whole_table_check_stops_the_watcher_and_says_why(capsys):
    checks, builds = checks_with_since()

    def fails(*args, **kwargs):
        raise SystemExit("dbt test failed")

    builds.build = fails
    checks.add({"number": 7}, {})
    checks.want_full(7)
    with pytest.raises(SystemExit):
        checks.run_piece(math.inf)
    out = capsys.readouterr().out
    assert "whole-table check: a piece of checks failed" in out
    assert "The batches not checked yet (7) stay unrecorded" in out
