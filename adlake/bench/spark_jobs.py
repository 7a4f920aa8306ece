"""The Spark jobs of an application, read from its event log, and the phase of a
Hudi write each one belongs to.

Spark writes an event log when `spark.eventLog.enabled` is on: one JSON event
per line, among them each job's start (with the local properties of the thread
that ran it) and end. Hudi describes nearly every job it runs with
`<class>:<activity>`, e.g. `SparkRDDWriteClient:Committing stats: t` or
`DirectWriteMarkers:Obtaining marker files for all created, merged paths`;
that description is what tells the phases apart:

- markers: listing and reconciling the write's marker files;
- file listing: listing a table's partitions and files from storage (what the
  metadata table saves when it is on), for a write or a read;
- metadata table: writing the table's own metadata table (its files, column
  and partition stats indexes), its bootstrap and its compactions;
- compaction, cleaning, archiving: the table services;
- index lookup: tagging incoming records with their file groups;
- hudi write: building the workload profile, finding small files and writing
  the files. The model's own SELECT runs inside these jobs (Hudi computes its
  input lazily), so its cost is counted here;
- query: a job Hudi did not run, e.g. a data test or a CDC read.

A job Hudi leaves undescribed belongs to the phase of the write step before it
in the same SQL statement (the write of a metadata table's records is one); after
a file listing, it is the query that listed them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PHASES = (
    "hudi write",
    "index lookup",
    "file listing",
    "metadata table",
    "markers",
    "compaction",
    "cleaning",
    "archiving",
    "query",
)
# Phases inside a write, which an undescribed job after them continues.
WRITE_PHASES = {
    "hudi write",
    "index lookup",
    "metadata table",
    "compaction",
    "cleaning",
    "archiving",
}


@dataclass
class Job:
    job_id: int
    start: float  # epoch seconds
    end: float
    description: str | None
    sql_execution: str | None
    phase: str = "query"

    @property
    def seconds(self) -> float:
        return self.end - self.start


def hudi_phase(description: str | None) -> str | None:
    """The phase of a job from Hudi's description of it; None when the job is
    not Hudi's (no `<class>:` prefix naming a class)."""
    if not description or ":" not in description:
        return None
    owner, activity = description.split(":", 1)
    owner = owner.split(" ")[0]  # "FileSystemBackedTableMetadata recursive listing step 1"
    if not owner.isidentifier():
        return None
    text = description.lower()
    if "marker" in owner.lower() or "/.temp/" in text:
        return "markers"
    if owner.startswith("FileSystemBacked") or "listing" in text:
        return "file listing"
    # The metadata table's own work: its writer and write client, its commits
    # and compactions (on the table named <table>_metadata).
    if (
        "metadata" in owner.lower()
        or text.rstrip().endswith("_metadata")
        or "/.hoodie/metadata" in text
    ):
        return "metadata table"
    if "compact" in text:
        return "compaction"
    if "clean" in text:
        return "cleaning"
    if "archiv" in text:
        return "archiving"
    if "tagging" in activity.lower() or "index" in owner.lower():
        return "index lookup"
    return "hudi write"


def read_jobs(event_log: Path) -> list[Job]:
    """Every finished job in the event log (a file, or the folder holding one
    application's log), each with its phase."""
    path = event_log
    if path.is_dir():
        logs = sorted(path.iterdir(), key=lambda p: p.stat().st_mtime)
        if not logs:
            raise FileNotFoundError(f"no Spark event log in {path}")
        path = logs[-1]
    started: dict[int, tuple[float, str | None, str | None]] = {}
    jobs: list[Job] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            event = json.loads(line)
            kind = event.get("Event")
            if kind == "SparkListenerJobStart":
                properties = event.get("Properties") or {}
                started[event["Job ID"]] = (
                    event["Submission Time"] / 1000,
                    properties.get("spark.job.description"),
                    properties.get("spark.sql.execution.id"),
                )
            elif kind == "SparkListenerJobEnd" and event["Job ID"] in started:
                start, description, execution = started.pop(event["Job ID"])
                jobs.append(
                    Job(
                        event["Job ID"],
                        start,
                        event["Completion Time"] / 1000,
                        description,
                        execution,
                    )
                )
    jobs.sort(key=lambda job: job.job_id)
    assign_phases(jobs)
    return jobs


def assign_phases(jobs: Iterable[Job]) -> None:
    last_in_execution: dict[str, str] = {}
    for job in jobs:
        phase = hudi_phase(job.description)
        if phase is None:
            phase = (
                last_in_execution.get(job.sql_execution or "", "query")
                if job.sql_execution
                else "query"
            )
        job.phase = phase
        if job.sql_execution and phase in WRITE_PHASES:
            last_in_execution[job.sql_execution] = phase


def covered_seconds(intervals: Iterable[tuple[float, float]]) -> float:
    """Length of the union of the intervals (jobs of one thread may overlap
    when Hudi runs some concurrently)."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end <= reach:
            continue
        total += end - max(start, reach)
        reach = end
    return total
