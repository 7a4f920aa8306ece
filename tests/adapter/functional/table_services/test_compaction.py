"""Compaction triggers, proven from the timeline: a compaction completes as a `commit`
on a merge-on-read table, whose writes are `deltacommit`s."""

import time

# Every run updates the same three records (so each delta commit writes log
# files for compaction to merge) with the run number as the new version.
MODEL = """
    {{{{ config(
        materialized='incremental',
        table_type='mor',
        unique_key='id',
        precombine_key='version',
        compaction={compaction},
    ) }}}}
    select id, {{{{ var('run') }}}} as version, id * {{{{ var('run') }}}} as cost
    from (values (1), (2), (3)) as t(id)
"""


class Runs:
    def __init__(self, project, compaction: str):
        self.project = project
        self.count = 0
        project.model("facts", MODEL.format(compaction=compaction))

    def run(self):
        self.count += 1
        self.project.dbt("run", "--vars", f"{{run: {self.count}}}")
        return self.actions()

    def actions(self):
        return [action for _, _, action in self.project.completed_instants("facts")]

    def first_commit_age(self) -> float:
        """Seconds since the first delta commit was requested (Hudi's clock for time triggers)."""
        return time.time() - instant_seconds(self.project.completed_instants("facts")[0][0])

    def compactions_after_first_commit(self) -> list:
        """For each compaction: seconds from the first delta commit's instant to its own."""
        instants = self.project.completed_instants("facts")
        first = instant_seconds(instants[0][0])
        return [
            instant_seconds(requested) - first
            for requested, _, action in instants
            if action == COMPACTION
        ]


def instant_seconds(instant: str) -> float:
    """A Hudi instant (yyyyMMddHHmmssSSS, in the JVM's local time zone) as epoch seconds."""
    return time.mktime(time.strptime(instant[:14], "%Y%m%d%H%M%S")) + int(instant[14:]) / 1000


DC, COMPACTION = "deltacommit", "commit"


def test_num_commits_compacts_after_the_nth_delta_commit(project):
    runs = Runs(project, "{'trigger': 'num_commits', 'delta_commits': 3}")
    assert runs.run() == [DC]
    assert runs.run() == [DC, DC]
    assert runs.run() == [DC, DC, DC, COMPACTION]
    # Compaction changes no data: the latest versions are still read.
    assert project.scalar("select sum(cost) from {schema}.facts") == 1 * 3 + 2 * 3 + 3 * 3


def wait_until_older_than(runs, seconds):
    remaining = seconds - runs.first_commit_age()
    if remaining > 0:
        time.sleep(remaining + 1)


def check_time_trigger(runs, seconds, before):
    """Run once more after `seconds` have passed since the first delta commit;
    `before` is the timeline until then. The assertions read the instants, not
    how long the runs took: on a busy machine the runs before the wait may
    themselves pass the time, and then they may compact, but never early."""
    assert all(age >= seconds for age in runs.compactions_after_first_commit()), (
        runs.project.completed_instants("facts")
    )
    wait_until_older_than(runs, seconds)
    after = runs.run()
    if COMPACTION not in before:
        assert after == before + [DC, COMPACTION]
    assert all(age >= seconds for age in runs.compactions_after_first_commit())


def test_time_elapsed_compacts_once_the_time_has_passed(project):
    runs = Runs(project, "{'trigger': 'time_elapsed', 'delta_seconds': 20}")
    runs.run()
    check_time_trigger(runs, 20, runs.run())


def test_num_and_time_needs_both(project):
    runs = Runs(project, "{'trigger': 'num_and_time', 'delta_commits': 2, 'delta_seconds': 20}")
    runs.run()
    check_time_trigger(runs, 20, runs.run())  # 2 commits early on: the time decides


def test_num_or_time_compacts_on_the_commit_count_first(project):
    runs = Runs(project, "{'trigger': 'num_or_time', 'delta_commits': 2, 'delta_seconds': 3600}")
    runs.run()
    assert runs.run() == [DC, DC, COMPACTION]


def test_num_or_time_compacts_on_the_time_first(project):
    runs = Runs(project, "{'trigger': 'num_or_time', 'delta_commits': 10, 'delta_seconds': 20}")
    runs.run()
    check_time_trigger(runs, 20, runs.run())


def test_mode_schedule_only_plans_and_the_operations_run_it(project):
    """The write only plans; lake_compact_scheduled runs what was planned and
    makes no plan of its own; lake_compact runs a plan too."""
    runs = Runs(project, "{'trigger': 'num_commits', 'delta_commits': 2, 'mode': 'schedule'}")
    runs.run()
    project.dbt("run-operation", "lake_compact_scheduled")  # nothing pending: nothing runs
    assert runs.actions() == [DC]
    assert runs.run() == [DC, DC]  # the second delta commit meets the trigger: planned, not run
    timeline = project.table_dir("facts") / ".hoodie" / "timeline"
    assert [p.name for p in timeline.glob("*.compaction.requested")], (
        "a compaction plan was scheduled"
    )
    project.dbt("run-operation", "lake_compact_scheduled")
    assert runs.actions() == [DC, DC, COMPACTION]
    assert project.scalar("select sum(cost) from {schema}.facts") == 2 * 1 + 2 * 2 + 2 * 3
    runs.run()
    assert runs.run() == [DC, DC, COMPACTION, DC, DC]
    project.dbt("run-operation", "lake_compact", "--args", "{model: facts}")
    assert runs.actions() == [DC, DC, COMPACTION, DC, DC, COMPACTION]


def test_changed_trigger_takes_effect_on_the_next_run(project):
    runs = Runs(project, "{'trigger': 'num_commits', 'delta_commits': 10}")
    runs.run()
    assert runs.run() == [DC, DC]
    project.model(
        "facts", MODEL.format(compaction="{'trigger': 'num_commits', 'delta_commits': 3}")
    )
    assert runs.run() == [DC, DC, DC, COMPACTION]
    props = {r[0]: r[1] for r in project.rows("show tblproperties {schema}.facts")}
    assert props["hoodie.compact.inline.max.delta.commits"] == "3"
