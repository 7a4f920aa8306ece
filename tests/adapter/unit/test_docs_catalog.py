"""The parsing of Spark's DESCRIBE output and the catalog's stats table."""

from dbt.adapters.lakehouse.docs import catalog as docs_catalog
from dbt.adapters.lakehouse.formats.hudi.catalog_stats import HudiHistory, instant_time
from dbt.adapters.lakehouse.lake.metadata import parse_describe

DESCRIBED = [
    ("_hoodie_commit_time", "string", None),
    ("id", "bigint", "the key"),
    ("day", "string", None),
    ("# Partition Information", "", ""),
    ("# col_name", "data_type", "comment"),
    ("day", "string", None),
    ("", "", ""),
    ("# Detailed Table Information", "", ""),
    ("Owner", "root", ""),
    ("Type", "MANAGED", ""),
    ("Provider", "hudi", ""),
    ("Location", "file:/lake/s.db/t", ""),
]


def test_describe_gives_the_columns_once_the_partition_columns_and_the_details():
    described = parse_describe(DESCRIBED)
    assert described.partitions == ["day"]
    assert described.columns == [
        ("_hoodie_commit_time", "string", ""),
        ("id", "bigint", "the key"),
        ("day", "string", ""),
    ]
    assert described.details == {
        "Owner": "root",
        "Type": "MANAGED",
        "Provider": "hudi",
        "Location": "file:/lake/s.db/t",
    }


def test_an_instant_reads_as_a_time():
    assert instant_time("20261126180002890") == "2026-11-26 18:00:02.890"
    assert instant_time("20261126180002") == "2026-11-26 18:00:02"
    assert instant_time("not an instant") == "not an instant"


def test_stats_values_that_look_like_numbers_stay_text():
    stats = docs_catalog.Stats()
    stats.add("latest_commit", "Latest commit", "20261126180002890", "")
    stats.add("rows", "Rows", 5, "")
    wanted = docs_catalog.Wanted("s", "t")
    rows = docs_catalog.catalog_rows(wanted, "table", {}, [("id", "bigint", "")], stats)
    table = docs_catalog.as_table(rows)
    row = dict(zip(table.column_names, table.rows[0], strict=True))
    assert row["stats:latest_commit:value"] == "20261126180002890"
    assert int(row["stats:rows:value"]) == 5


def test_a_consumer_behind_is_shown_on_its_upstream():
    upstream = docs_catalog.Described(
        rows=[{}], history=HudiHistory(["20260101000001000", "20260101000002000"])
    )
    # (Its write recorded the first commit, a later run that wrote nothing an older one.)
    consumer = docs_catalog.Described(
        rows=[{}], consumed={"s.up": ["20260101000001000", "20260101000000500"]}
    )
    docs_catalog.add_consumer_stats({"s.up": upstream, "s.down": consumer})
    assert upstream.rows[0]["stats:read_by_down:value"] == (
        "up to the commit completed 2026-01-01 00:00:01.000, 1 commit(s) behind"
    )
    assert not any(key.startswith("stats:") for key in consumer.rows[0])


def test_an_iceberg_upstreams_consumers_are_counted_in_snapshots_not_rewrites():
    from dbt.adapters.lakehouse.formats.iceberg.history import Ancestry

    # 1 <- 2 <- 3 (a rewrite) <- 4; a larger id is not a later snapshot.
    rows = [
        (9, None, "append", 0),
        (2, 9, "overwrite", 0),
        (3, 2, "replace", 0),
        (1, 3, "append", 0),
    ]
    history = Ancestry.from_rows([(*row, None, None) for row in rows], "1")
    upstream = docs_catalog.Described(rows=[{}], history=history)
    readers = {
        "i.behind": ["9", "2"],  # its write read 9, a run that wrote nothing 2
        "i.current": ["1"],
        "i.lost": ["77"],
    }
    described = {"i.up": upstream} | {
        name: docs_catalog.Described(rows=[{}], consumed={"i.up": positions})
        for name, positions in readers.items()
    }
    docs_catalog.add_consumer_stats(described)
    row = upstream.rows[0]
    assert row["stats:read_by_behind:value"] == "up to snapshot 2, 1 snapshot(s) behind"
    assert row["stats:read_by_current:value"] == "up to snapshot 1, up to date"
    assert row["stats:read_by_lost:value"].startswith("snapshot 77, no longer an ancestor")


def test_relations_are_described_by_namespace_a_file_source_by_its_format():
    from types import SimpleNamespace

    from dbt.adapters.lakehouse.relation import LakehouseRelation

    nodes = [
        LakehouseRelation.create(schema="binaryFile", identifier="/landing/feed/*.jsonl"),
        LakehouseRelation.create(schema="ods", identifier="events"),
        LakehouseRelation.create(database="iceberg", schema="ods", identifier="events"),
    ]
    wanted = docs_catalog.wanted_relations(
        [SimpleNamespace(raw_code="") for _ in nodes], lambda node: nodes.pop(0)
    )
    grouped = docs_catalog.by_schema(wanted)
    assert sorted(grouped) == ["binaryFile", "iceberg.ods", "ods"]
    assert [w.table for w in grouped["iceberg.ods"]] == ["iceberg.ods.events"]
    assert [w.table for w in grouped["binaryFile"]] == ["binaryFile./landing/feed/*.jsonl"]
