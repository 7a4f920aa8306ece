"""Seeds on Hudi (`file_format: hudi`): typed columns, re-seeding and --full-refresh.

Seeds default to parquet; a Hudi seed is created from the typed config like
any other Hudi table and filled by column name with casts to the stored types.
"""

import datetime
from decimal import Decimal

import yaml

# A date partition column in the middle: Spark and Hudi store partition
# columns last, so a positional insert would put `campaign` into `start_date`.
RATES_CSV = """
rate_id,start_date,campaign,cpm,is_active,updated_at
1,2024-01-01,spring,1.25,true,2024-01-01 08:00:00
2,2024-02-01,it's summer,12345678901234.56,false,2024-02-01 09:30:15
3,2024-02-01,,0.10,,
"""

RATES_YML = """
seeds:
  - name: rates
    config:
      file_format: hudi
      partition_by: start_date
      column_types:
        rate_id: int
        start_date: date
        campaign: string
        cpm: decimal(20,2)
        is_active: boolean
        updated_at: timestamp
"""


def test_typed_seed_reseed_and_full_refresh(project):
    project.write("seeds/rates.csv", RATES_CSV)
    project.write("seeds/rates.yml", RATES_YML)
    project.dbt("seed")

    types = {
        r.col_name: r.data_type
        for r in project.rows("describe {schema}.rates")
        if not r.col_name.startswith("#")
    }
    assert {k: v for k, v in types.items() if not k.startswith("_hoodie")} == {
        "rate_id": "int",
        "campaign": "string",
        "cpm": "decimal(20,2)",
        "is_active": "boolean",
        "updated_at": "timestamp",
        "start_date": "date",
    }
    rows = project.rows(
        "select rate_id, start_date, campaign, cpm, is_active, updated_at from {schema}.rates order by 1"
    )
    assert [tuple(r) for r in rows] == [
        (
            1,
            datetime.date(2024, 1, 1),
            "spring",
            Decimal("1.25"),
            True,
            datetime.datetime(2024, 1, 1, 8, 0),
        ),
        (
            2,
            datetime.date(2024, 2, 1),
            "it's summer",
            Decimal("12345678901234.56"),
            False,
            datetime.datetime(2024, 2, 1, 9, 30, 15),
        ),
        # Empty cells are NULL, not the text 'None'.
        (3, datetime.date(2024, 2, 1), None, Decimal("0.10"), None, None),
    ]
    # A Hudi table on disk, partitioned by the date (hive-style folders).
    assert project.hoodie_properties("rates")["hoodie.table.partition.fields"] == "start_date"
    partitions = sorted(
        p.name for p in project.table_dir("rates").iterdir() if p.name.startswith("start_date=")
    )
    assert partitions == ["start_date=2024-01-01", "start_date=2024-02-01"]

    # A second `dbt seed` replaces the rows: the changed CSV's rows, no duplicates.
    project.write(
        "seeds/rates.csv", RATES_CSV.replace("1.25", "1.30").replace("3,2024-02-01,,0.10,,\n", "")
    )
    project.dbt("seed")
    assert [
        tuple(r) for r in project.rows("select rate_id, cpm from {schema}.rates order by 1")
    ] == [
        (1, Decimal("1.30")),
        (2, Decimal("12345678901234.56")),
    ]

    project.dbt("seed", "--full-refresh")
    assert project.scalar("select count(*) from {schema}.rates") == 2
    assert project.scalar("select cpm from {schema}.rates where rate_id = 1") == Decimal("1.30")
    assert "hoodie.table.partition.fields" in project.hoodie_properties("rates")


# No column_types: the types are inferred from the values.
EVENTS_CSV = """
event_id,event_date,seen_at,amount,is_billable,note
1,2024-03-01,2024-03-01 10:00:00,2.5,true,first
2,2024-03-02,2024-03-02 11:30:00,4,false,
"""


def test_inferred_types_on_hudi_and_parquet_by_default(project):
    project.write("seeds/events.csv", EVENTS_CSV)
    project.write("seeds/events_parquet.csv", EVENTS_CSV)
    project.write(
        "seeds/events.yml",
        yaml.safe_dump({"seeds": [{"name": "events", "config": {"file_format": "hudi"}}]}),
    )
    project.dbt("seed")

    for table in ("events", "events_parquet"):
        rows = project.rows(
            f"select event_id, event_date, seen_at, amount, is_billable, note from {{schema}}.{table} order by 1"
        )
        assert [tuple(r) for r in rows] == [
            (
                1,
                datetime.date(2024, 3, 1),
                datetime.datetime(2024, 3, 1, 10, 0),
                2.5,
                True,
                "first",
            ),
            (2, datetime.date(2024, 3, 2), datetime.datetime(2024, 3, 2, 11, 30), 4.0, False, None),
        ]
    assert (project.table_dir("events") / ".hoodie" / "hoodie.properties").exists()
    # Seeds without file_format stay plain parquet.
    assert not (project.table_dir("events_parquet") / ".hoodie").exists()
    assert list(project.table_dir("events_parquet").glob("*.parquet"))
