"""Two dbt runs on one embedded lake at once: the second waits for the lake,
and runs when the first ends; with too short a wait it stops with a clear
message before touching anything. Neither run corrupts a table.

Each run is `dbt run` as a user starts it (the CLI, one JVM each) on a lake of
the test's own. The first is held inside its model until the test opens a gate
(a file appears in a folder the model polls), so the outcome never depends on
how fast the second process starts on a busy machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

from tests.dbt_harness import DbtProject, completed_instants, hudi_jar

DBT = Path(sys.executable).with_name("dbt")

# Every run upserts ids 1..50 with value id * run. A run given a `gate` folder
# waits, holding the lake, until a file is in it.
MODEL = """
    {{ config(materialized='incremental', unique_key='id') }}
    {% if var('gate', none) %}{{ wait_for_gate(var('gate')) }}{% endif %}
    select id, {{ var('run') }} as run, id * {{ var('run') }} as value
    from (select explode(sequence(1, 50)) as id)
"""

# Polls the folder through the run's own Spark session (half a second apart, at
# most ten minutes); Jinja has no while loop, hence the flag in a namespace.
GATE_MACRO = """
    {% macro wait_for_gate(folder) %}
      {% if execute %}
        {% set state = namespace(open=false) %}
        {% for _ in range(1200) %}
          {% if not state.open %}
            {% set lines = run_query("select count(*) from text.`" ~ folder ~ "`") %}
            {% set state.open = lines.columns[0].values()[0] > 0 %}
            {% if not state.open %}
              {% do run_query("select reflect('java.lang.Thread', 'sleep', cast(500 as bigint))") %}
            {% endif %}
          {% endif %}
        {% endfor %}
      {% endif %}
    {% endmacro %}
"""


def start(project: DbtProject, run: int, gate: Path | None = None) -> subprocess.Popen:
    log = (project.root / f"run_{run}.log").open("w")
    return subprocess.Popen(
        [
            str(DBT),
            "run",
            "--project-dir",
            str(project.root),
            "--profiles-dir",
            str(project.root),
            "--vars",
            f"{{run: {run}, gate: '{gate or ''}'}}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "DBT_PROFILES_DIR": ""},
    )


def output(project: DbtProject, run: int) -> str:
    return (project.root / f"run_{run}.log").read_text(errors="replace")


def own_lake(tmp_path, lock_timeout: float) -> DbtProject:
    project = DbtProject(tmp_path / "project", "two_runs", tmp_path / "lake")
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    profile["lake_test"]["outputs"]["local"]["lake_lock_timeout"] = lock_timeout
    profile["lake_test"]["outputs"]["local"]["hudi_jar"] = str(hudi_jar())
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile))
    project.model("values", MODEL)
    project.write("macros/gate.sql", GATE_MACRO)
    (project.root / "gate").mkdir()
    return project


def open_gate(project: DbtProject) -> None:
    (project.root / "gate" / "open.txt").write_text("open\n")


def wait_for_output(project: DbtProject, run: int, process: subprocess.Popen, text: str) -> None:
    deadline = time.monotonic() + 300
    while text not in output(project, run):
        assert process.poll() is None, output(project, run)
        assert time.monotonic() < deadline, f"run {run} never printed {text!r}"
        time.sleep(0.2)


def wait_for_lock_holder(project: DbtProject, first: subprocess.Popen) -> None:
    """Until the first run holds the lake (its lock file names it) and has started its write."""
    lock = project.lake_dir / ".lakehouse.lock"
    deadline = time.monotonic() + 300
    while not (
        lock.exists()
        and f"pid {first.pid}" in lock.read_text()
        and (project.lake_dir / "warehouse" / "two_runs.db").is_dir()
    ):
        assert first.poll() is None, output(project, 1)
        assert time.monotonic() < deadline, "the first run never took the lake"
        time.sleep(0.2)


def test_the_second_run_waits_for_the_lake_then_runs(tmp_path):
    project = own_lake(tmp_path, lock_timeout=600)
    first = start(project, 1, gate=project.root / "gate")
    try:
        wait_for_lock_holder(project, first)
        second = start(project, 2)
        wait_for_output(project, 2, second, "is in use by another process")
    finally:
        open_gate(project)
    assert first.wait(600) == 0, output(project, 1)
    assert second.wait(600) == 0, output(project, 2)
    # Both wrote, one after the other: two commits, the second run's values.
    assert [a for _, _, a in completed_instants(project.table_dir("values"))] == [
        "commit",
        "commit",
    ]


def test_the_second_run_stops_with_a_clear_message_when_the_wait_is_over(tmp_path):
    project = own_lake(tmp_path, lock_timeout=1)
    first = start(project, 1, gate=project.root / "gate")
    try:
        wait_for_lock_holder(project, first)
        second = start(project, 2)
        assert second.wait(600) != 0
    finally:
        open_gate(project)
        first.wait(600)
    message = output(project, 2)
    assert (
        f"The lake {project.lake_dir.resolve()} is in use by another process (pid {first.pid}"
        in message
    )
    assert "lake_lock_timeout" in message
    # The first run's write is whole; the second wrote nothing.
    assert first.returncode == 0, output(project, 1)
    assert [a for _, _, a in completed_instants(project.table_dir("values"))] == ["commit"]
