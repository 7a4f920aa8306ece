"""Reads lake tables with each format's reader outside Spark, no JVM:
hudi-rs (`hudi`), PyIceberg and delta-rs (`deltalake`), as a user of another
engine would, and prints what it read: per table its row count and the sums
of the columns asked for, or the reader's error.

Run with the readers' own virtualenv (tools/setup.sh --tests makes it:
.cache/readers), not the test suite's:

    .cache/readers/bin/python tests/readers/read_tables.py '[{"format": "delta",
        "path": "/lake/warehouse/s.db/t", "sum": ["spend_micros"]}]'

An Iceberg table's path is its folder in the Hadoop catalog (metadata/ with
its version-hint.text); the others' is the table's folder.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc


def read_hudi(path: str) -> pa.Table:
    from hudi import HudiTableBuilder

    table = HudiTableBuilder.from_base_uri(path).build()
    batches = table.read()
    return pa.Table.from_batches(batches, schema=table.get_schema_with_meta_fields())


def read_iceberg(path: str) -> pa.Table:
    from pyiceberg.table import StaticTable

    metadata = Path(path) / "metadata"
    version = (metadata / "version-hint.text").read_text().strip()
    table = StaticTable.from_metadata(str(metadata / f"v{version}.metadata.json"))
    return table.scan().to_arrow()


def read_delta(path: str) -> pa.Table:
    from deltalake import DeltaTable

    return DeltaTable(path).to_pyarrow_table()


READERS = {"hudi": read_hudi, "iceberg": read_iceberg, "delta": read_delta}


def describe(table: dict) -> dict:
    try:
        rows = READERS[table["format"]](table["path"])
    except Exception as exc:  # the reader's own refusal is the finding
        return {"error": f"{type(exc).__name__}: {exc}"}
    sums = {column: pc.sum(rows[column]).as_py() or 0 for column in table.get("sum", [])}
    return {"rows": rows.num_rows, "sums": sums}


def main() -> None:
    tables = json.loads(sys.argv[1])
    print(json.dumps({t["path"]: describe(t) for t in tables}))


if __name__ == "__main__":
    main()
