"""What an Iceberg create killed midway leaves (formats/leftovers.py).

Iceberg's table is kept by Iceberg's catalog, the session catalog's entry is
a pointer to it (java/LakeSessionCatalog.java): a kill between the two leaves
the table without its pointer; a kill before its first commit, files only.
"""

from __future__ import annotations

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.formats.iceberg.change_ranges import CATALOG
from dbt.adapters.lakehouse.formats.leftovers import (
    COMMITTED,
    LEFTOVER,
    Clearing,
    Found,
    is_no_table,
    leftover_note,
    taken_over_note,
)


def clear_killed_create(clearing: Clearing, replaces: bool) -> str | None:
    table = f"{CATALOG}.{clearing.table}"
    folder = hadoop_folder(clearing, table)
    if folder is not None and not clearing.list_paths(folder, "*"):
        return None  # the usual case: Iceberg's catalog has nothing there
    try:
        snapshots = clearing.ask("iceberg_snapshots", table=table)
    except DbtRuntimeError as exc:
        if not is_no_table(str(exc)):
            raise
        if folder is None:
            return None  # no such table in a catalog of another type
        found = Found(LEFTOVER, "files of an Iceberg table never committed", "iceberg")
        return clearing.settle(f"its folder {folder}", folder, found)
    where = f"Iceberg's table {table}"
    if snapshots:
        found = Found(
            COMMITTED,
            f"an Iceberg table with {len(snapshots)} snapshot(s) (in Iceberg's catalog, "
            "with no entry in the session catalog)",
            "iceberg",
        )
        if replaces:
            return taken_over_note(clearing.relation, where, found)
        raise DbtRuntimeError(
            f"Model {clearing.model}: its table {clearing.relation} is not in the catalog, but "
            f"Iceberg's catalog holds {table}, {found.holds}. dbt-lakehouse never removes "
            f"committed data. Drop it (`drop table {table} purge`) or rename it in Iceberg's "
            f"catalog (`alter table {table} rename to ...`), then run again."
        )
    clearing.ask("purge_iceberg_table", table=table)
    return leftover_note(
        clearing.relation, where, Found(LEFTOVER, "an Iceberg table with no snapshot")
    )


def hadoop_folder(clearing: Clearing, table: str) -> str | None:
    """Where Iceberg's Hadoop catalog keeps a table (catalog.schema.table);
    None for a catalog of another type."""
    catalog, schema, identifier = table.split(".")
    prefix = f"spark.sql.catalog.{catalog}"
    if (clearing.session_setting(f"{prefix}.type") or "").lower() != "hadoop":
        return None
    warehouse = clearing.session_setting(f"{prefix}.warehouse")
    return f"{warehouse.rstrip('/')}/{schema}/{identifier}" if warehouse else None
