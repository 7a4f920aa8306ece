"""The embedded session's class-data archive (the adapter's session/class_data.py),
through dbt commands in processes of their own, as a user runs them: the
first records the classes its JVM loads and has it write the archive as the
command ends; the next one's JVM takes Spark's classes from it. The second
also sets its own JVM flags in the profile (a class-loading log), which come
after the session's instead of replacing them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.dbt_harness import profile_yaml

MODEL = "{{ config(materialized='table', unique_key='id') }} select 1 as id, 'a' as v"
FROM_ARCHIVE = "source: shared objects file (top)"
# Loaded from the JDK's modules or a jar of pyspark's, not from the archive.
ARCHIVABLE = re.compile(r"source: (jrt:/|file:\S*/pyspark/jars/)")


def dbt_run(project: Path, cache: Path) -> subprocess.CompletedProcess:
    dbt = Path(sys.executable).with_name("dbt")
    return subprocess.run(
        [str(dbt), "run", "--project-dir", str(project), "--profiles-dir", str(project)],
        env={**os.environ, "LAKEHOUSE_JAR_CACHE": str(cache), "LAKEHOUSE_WARM_START": "0"},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_first_command_writes_the_archive_and_the_next_one_maps_it(tmp_path):
    project, cache = tmp_path / "project", tmp_path / "jar-cache"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: archive\nversion: '1.0.0'\nconfig-version: 2\nprofile: archive\n"
    )
    (project / "models" / "events.sql").write_text(MODEL)
    (project / "profiles.yml").write_text(profile_yaml("archive", "archive", tmp_path / "lake"))

    first = dbt_run(project, cache)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "Writing the JVM's class-data archive" in first.stdout
    # One archive, complete and in place: no lock, nothing half-written.
    [archive] = (cache / "class-data").iterdir()
    assert archive.suffix == ".jsa" and archive.stat().st_size > 10_000_000

    profile = yaml.safe_load((project / "profiles.yml").read_text())
    loaded = tmp_path / "class-load.log"
    profile["archive"]["outputs"]["local"]["spark_conf"] = {
        "spark.driver.extraJavaOptions": f"-Xlog:class+load=info:file={loaded}"
    }
    (project / "profiles.yml").write_text(yaml.safe_dump(profile))
    second = dbt_run(project, cache)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "class-data archive" not in second.stdout
    assert sorted(p.name for p in (cache / "class-data").iterdir()) == [archive.name]
    lines = loaded.read_text().splitlines()
    shared = [line for line in lines if FROM_ARCHIVE in line]
    # Most of what the JVM loaded from the JDK and Spark's own jars (what an
    # archive can hold: not the jars Spark adds at run time, the Hudi
    # bundle's) came from the archive, Spark's SQL engine among it.
    archivable = [line for line in lines if FROM_ARCHIVE in line or ARCHIVABLE.search(line)]
    assert len(shared) > len(archivable) / 2, (len(shared), len(archivable), len(lines))
    assert any("org.apache.spark.sql.SparkSession " in line for line in shared)
