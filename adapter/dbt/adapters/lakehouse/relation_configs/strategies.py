"""What each incremental strategy does and allows: one table that the config
validation (formats/hudi/table_config.py), the macros (through the model's
`lake.strategy(name)`) and the docs (adapter/README.md's "Incremental
strategies" table, rendered by markdown_table() and checked by a unit test)
all read.

The SQL of each strategy is its macro, lakehouse__get_incremental_<name>_sql
(macros/strategies/), found by dbt's dispatch.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Strategy:
    name: str
    # The Hudi write operation (hoodie.spark.sql.insert.into.operation).
    operation: str
    # Needs a unique_key (the Hudi record key).
    needs_key: bool = False
    # Without a unique_key, the strategy run instead (dbt's contract for a
    # merge with no key: every row is inserted).
    without_key: str | None = None
    # Batch rows are matched to stored records by key, so incremental_predicates
    # and merge_update_columns / merge_exclude_columns apply.
    matches_stored: bool = False
    # delete_condition is allowed (deletes are matched by key too).
    deletes: bool = False
    # `insert overwrite`: replaces the partitions the batch writes (dynamic
    # partition overwrite), the whole table when it is not partitioned.
    overwrites: bool = False
    # An empty batch still runs the strategy (microbatch empties its window).
    runs_when_empty: bool = False
    # A merge-on-read table with a precombine_key is allowed.
    mor_with_precombine: bool = True
    # For the docs.
    hudi_write: str = ""
    needs: str = ""
    notes: str = ""


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        Strategy(
            "append",
            operation="insert",
            hudi_write="insert (no index lookup, no dedup)",
            notes="the default without a key; the cheap path for logs",
        ),
        Strategy(
            "upsert",
            operation="upsert",
            needs_key=True,
            matches_stored=True,
            deletes=True,
            hudi_write="upsert by record key",
            needs="`unique_key`",
            notes="the default with a key; with `precombine_key` an older row never beats a "
            "newer one",
        ),
        Strategy(
            "merge",
            operation="upsert",
            without_key="append",
            matches_stored=True,
            deletes=True,
            hudi_write="`MERGE INTO` on the record key, every column set",
            needs="`unique_key` (without one, none or empty: `append`, as dbt-spark's merge)",
            notes="dbt-spark's name; Hudi applies `precombine_key` to the updates",
        ),
        Strategy(
            "insert_overwrite",
            operation="insert_overwrite",
            overwrites=True,
            hudi_write="insert overwrite",
            notes="replaces the partitions the batch writes (the whole table if unpartitioned)",
        ),
        Strategy(
            "microbatch",
            operation="upsert",
            runs_when_empty=True,
            # A batch deletes its window, then writes its rows: seen in Hudi
            # 1.2, on MOR a deleted record comes back when a later write of its
            # key has a smaller precombine value (compaction keeps it).
            mor_with_precombine=False,
            hudi_write="delete the batch's `event_time` window, then upsert (keyless: insert)",
            needs="`event_time`, `batch_size`, `begin`",
            notes="dbt's microbatch: `lookback`, backfills with "
            "`--event-time-start/--event-time-end`; an empty batch empties its window",
        ),
    )
}


# How a table written by SQL MERGE runs each strategy it takes (the formats
# without a record key of their own: formats/merge_table.py), for the docs'
# table of configs by format.
MERGE_STRATEGIES = {
    "append": "`INSERT INTO`",
    "upsert": "`MERGE INTO` on the unique_key",
    "merge": "`MERGE INTO` on the unique_key (without one: `append`)",
    "insert_overwrite": "`INSERT OVERWRITE` of the partitions the batch writes",
    "microbatch": "one `MERGE INTO` per batch that replaces its event_time window "
    "(`WHEN NOT MATCHED BY SOURCE` deletes the window's other rows): one snapshot",
}


def default(keyed: bool) -> Strategy:
    """A model's strategy when it sets none, and a table's first load: a keyed
    table upserts (dedup by key), a keyless one appends."""
    return STRATEGIES["upsert" if keyed else "append"]


def markdown_table() -> str:
    """The docs' table of strategies (adapter/README.md)."""

    def mark(flag: bool) -> str:
        return "yes" if flag else ""

    lines = [
        "| strategy | Hudi write | needs | `delete_condition` | `incremental_predicates`, "
        "`merge_update_columns` | `mor` with `precombine_key` | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in STRATEGIES.values():
        lines.append(
            f"| `{s.name}` | {s.hudi_write} | {s.needs} | {mark(s.deletes)} | "
            f"{mark(s.matches_stored)} | {mark(s.mor_with_precombine)} | {s.notes} |"
        )
    return "\n".join(lines)
