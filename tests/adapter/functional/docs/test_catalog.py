"""dbt docs' catalog: the project's own relations only, their own columns, and
the lake stats of each Hudi table, checked against the table's files.

The schema also holds 200 tables the project never made: the catalog must not
look at them, so that its time does not grow with them (dbt-spark's lists and
opens every table of the schema).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.dbt_harness import DbtProject, completed_instants

UNRELATED = 200

EVENTS = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id',
              precombine_key='version', partition_by='day') }}
    select id, {{ var('v') }} as version, id * {{ var('v') }} as cost, concat('d', id % 2) as day
    from (select explode(sequence(1, 5)) as id)
"""

# Reads the events by change reads: its commits record how far it has read.
EVENTS_CHANGES = """
    {{ config(materialized='incremental', unique_key='id') }}
    select id, version, cost from {{ lake_changes(ref('events')) }} as changes
"""

EVENTS_VIEW = """
    {{ config(materialized='view') }}
    select id, cost from {{ ref('events') }}
"""


@pytest.fixture(scope="module")
def docs(tmp_path_factory, lake_dir):
    project = DbtProject(tmp_path_factory.mktemp("docs_catalog"), "t_docs_catalog", lake_dir)
    project.model("events", EVENTS)
    project.model("events_changes", EVENTS_CHANGES)
    project.model("events_view", EVENTS_VIEW)
    # Landed files as a source on Spark's binaryFile file source, and a feed
    # that has not landed yet.
    landed = project.root / "landed"
    for name, text in (("a.jsonl", '{"x": 1}\n'), ("b.jsonl", '{"x": 2}\n{"x": 3}\n')):
        project.write(f"landed/{name}", text)
    project.write(
        "models/sources.yml",
        f"""
        version: 2
        sources:
          - name: landing
            schema: binaryFile
            quoting: {{identifier: true}}
            tables:
              - name: feed
                identifier: "{landed}"
              - name: not_landed
                identifier: "{project.root / "nothing_here"}"
        """,
    )
    project.dbt("run", "--vars", "{v: 1}")
    # The events move on twice; their consumer does not.
    project.dbt("run", "--select", "events", "--vars", "{v: 2}")
    project.dbt("run", "--select", "events", "--vars", "{v: 3}")
    return project


def generate(project) -> tuple[dict, list[str], float]:
    """catalog.json, the statements dbt ran to build it, and its seconds."""
    log = project.root / "logs" / "dbt.log"
    start = log.stat().st_size if log.exists() else 0
    started = time.monotonic()
    project.dbt("docs", "generate", "--vars", "{v: 3}")
    seconds = time.monotonic() - started
    with log.open() as f:
        f.seek(start)
        text = f.read()
    statements = re.findall(r"On catalog_\w+: (?:/\*.*?\*/\s*)?(.+)", text)
    catalog = json.loads((project.root / "target" / "catalog.json").read_text())
    return catalog, statements, seconds


def stats(node: dict) -> dict:
    return {key: item["value"] for key, item in node["stats"].items() if item["include"]}


def file_ids(table_dir: Path) -> set[tuple[str, str]]:
    """(partition, file id) of every base and log file on disk."""
    found = set()
    for path in table_dir.glob("day=*/*"):
        name = path.name
        if name.endswith(".parquet"):
            found.add((path.parent.name, name.split("_")[0]))
        elif ".log." in name:
            found.add((path.parent.name, name.lstrip(".").split("_")[0]))
    return found


def test_catalog_lists_the_projects_relations_with_lake_stats(docs):
    catalog, statements, seconds = generate(docs)
    print(f"docs generate: {seconds:.1f} s, {len(statements)} catalog statements")
    nodes = catalog["nodes"]
    assert not catalog["errors"], catalog["errors"]
    assert set(nodes) == {
        f"model.lake_test.{m}" for m in ("events", "events_changes", "events_view")
    }

    events = nodes["model.lake_test.events"]
    # The model's own columns, in order; Hudi's meta columns only in a stat.
    assert list(events["columns"]) == ["id", "version", "cost", "day"]
    assert events["columns"]["id"]["type"] == "int"
    figures = stats(events)
    assert figures["hudi_meta_columns"].startswith("_hoodie_commit_time, _hoodie_commit_seqno")
    assert figures["table_type"] == "MERGE_ON_READ"
    assert (figures["record_key"], figures["ordering_field"]) == ("id", "version")
    assert figures["partition_columns"] == "day"

    table_dir = docs.table_dir("events")
    on_disk = completed_instants(table_dir)  # (instant, completed, action), oldest first
    writes = [i for i in on_disk if i[2] in ("commit", "deltacommit", "replacecommit")]
    assert figures["commits"] == len(writes) == 3
    latest = max(on_disk)
    assert figures["latest_commit"].startswith(f"{latest[0]} ({latest[2]}, completed ")
    assert figures["pending_compactions"] == 0
    assert figures["file_groups"] == len(file_ids(table_dir)) == 2
    assert figures["rows"] == 5
    # Every file but Hadoop's checksums (.crc), which its file system hides.
    files = [p for p in table_dir.rglob("*") if p.is_file() and p.suffix != ".crc"]
    assert figures["bytes"] == sum(p.stat().st_size for p in files)

    # The consumer read the first write; two came after.
    consumed = writes[0][1]
    assert figures["read_by_events_changes"] == (
        f"up to the commit completed {consumed[:4]}-{consumed[4:6]}-{consumed[6:8]} "
        f"{consumed[8:10]}:{consumed[10:12]}:{consumed[12:14]}.{consumed[14:17]}, "
        "2 commit(s) behind"
    )
    assert "read_by_events_changes" not in stats(nodes["model.lake_test.events_changes"])

    # The landed folder: the file source's columns, and its files.
    assert list(catalog["sources"]) == ["source.lake_test.landing.feed"]
    feed = catalog["sources"]["source.lake_test.landing.feed"]
    assert list(feed["columns"]) == ["path", "modificationTime", "length", "content"]
    files = sorted((docs.root / "landed").iterdir())
    assert stats(feed)["files"] == 2
    assert stats(feed)["bytes"] == sum(f.stat().st_size for f in files)

    view = nodes["model.lake_test.events_view"]
    assert view["metadata"]["type"] == "view"
    assert list(view["columns"]) == ["id", "cost"]
    assert "table_type" not in stats(view)


def test_catalog_does_not_look_at_unrelated_tables(docs):
    _, before, _ = generate(docs)
    for i in range(UNRELATED):
        docs.rows(f"create table {{schema}}.unrelated_{i} (x int) using parquet")
    catalog, after, seconds = generate(docs)
    print(f"docs generate with {UNRELATED} unrelated tables: {seconds:.1f} s")
    assert not any("unrelated" in key for key in catalog["nodes"])
    # The same statements as before the tables came, none naming one of them.
    assert sorted(after) == sorted(before)
    assert not [s for s in after if "unrelated" in s]
    described = [s for s in after if s.startswith("describe table extended")]
    assert len(described) == 3
