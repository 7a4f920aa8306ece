"""Data tests scoped to what a run changed.

With the project var `lakehouse_test_scope: changed`, a generic data test of a
Hudi model that this dbt invocation wrote checks only what the write could have
broken, instead of scanning the whole table:

- a row test (not_null, accepted_values, relationships: each row passes or
  fails on its own) reads the rows the invocation wrote: a Hudi incremental
  read (`hudi_table_changes`) of the commits completed after the table's
  latest one when the model started, which opens only the files they wrote
  (on a merge-on-read table whose records merge by an ordering field, the
  rows of later commits in the partitions they wrote instead: there Hudi's
  incremental read can return a late write that lost to the stored record);
- a key test (unique, unique_combination_of_columns) reads every row, old or
  new, whose key is among those written (rows whose `_hoodie_commit_time` is
  later than the table's latest instant when the model started): a new row
  that repeats an old row's key is a duplicate too, which the new rows alone
  would not show.

A reconciliation (a sum in one table against a sum in another) can be scoped
by the groups it compares: `changed_values_sql` gives the values of its group
columns among the rows either table had written, and both sums are taken over
those groups only (the project's `cost_conserved` test, with `scope_by`).

A model whose rows are those of a Hudi model, one each by a shared key (a view
that adds dimensions to a fact table), declares it in its config,
`meta: {lakehouse_rows_from: {model: <its upstream>, key: <column>}}`: its row
and key tests then read its rows whose key the upstream's run wrote.

Anything else is checked whole: a test of a table the invocation did not write
(a plain `dbt test`, a seed, a view without `lakehouse_rows_from`), of a table
it created or rebuilt (every row is new), and a test whose kind is unknown here
(a reconciliation that sums a column over a table would compare part of it
with the whole). A generic test of a project opts in with
`meta: {lakehouse_test_scope: rows}` in its config, and any test opts out with
`full`.

Scoping is exact only if the table was checked whole once and every write to
it since ran through a scoped or full check: `changed` is meant for the
batches between full runs (`full`, the default), not instead of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dbt_common.exceptions import CompilationError

SCOPE_VAR = "lakehouse_test_scope"
# schema.table -> the table's latest instant before an earlier run: tests of a
# `dbt test` read that run's writes (written_tables).
CHANGED_SINCE_VAR = "lakehouse_changed_since"
MODES = ("full", "changed")
META_KEY = "lakehouse_test_scope"
ROWS_FROM_KEY = "lakehouse_rows_from"

# Partitions a write touched: each as its (column, value) pairs.
Partitions = tuple[tuple[tuple[str, str | None], ...], ...]

ROW_TESTS = frozenset({"not_null", "accepted_values", "relationships"})
KEY_TESTS = {
    "unique": lambda kwargs: [kwargs.get("column_name")],
    "unique_combination_of_columns": lambda kwargs: list(
        kwargs.get("combination_of_columns") or []
    ),
}


def check_mode(value: Any, node_name: str) -> str:
    mode = str(value).strip().lower()
    if mode not in MODES:
        raise CompilationError(
            f"'{node_name}': var {SCOPE_VAR} is {value!r}; use 'full' (check whole tables, "
            f"the default) or 'changed' (check what this run wrote), e.g. --vars '{{{SCOPE_VAR}: changed}}'."
        )
    return mode


def test_kind(
    test_metadata: Mapping[str, Any] | None, meta: Mapping[str, Any] | None
) -> tuple[str, list[str]] | None:
    """('rows', []) or ('keys', [columns]) for a test that can be scoped; None
    for one checked whole."""
    declared = str((meta or {}).get(META_KEY, "")).strip().lower()
    if declared == "full":
        return None
    if declared == "rows":
        return ("rows", [])
    if not test_metadata:  # a singular test: its SQL is its own
        return None
    name = test_metadata.get("name")
    if name in ROW_TESTS:
        return ("rows", [])
    if name in KEY_TESTS:
        keys = [str(k) for k in KEY_TESTS[name](test_metadata.get("kwargs") or {}) if k]
        return ("keys", keys) if keys else None
    return None


@dataclass(frozen=True)
class Since:
    """A table's latest commit when a model started writing it."""

    instant: str  # the rows of later commits carry a greater _hoodie_commit_time
    completed: str  # an incremental read of the later commits begins here
    # Once the write is done: the partitions the later commits wrote, each
    # as its (column, value) pairs (value None: Hudi's null partition), so
    # that a query for their rows reads only those partitions (none: the
    # write wrote nothing). None: all of them.
    partitions: Partitions | None = None
    partition_columns: tuple[str, ...] = ()
    # False when the table's incremental query can return a write that lost
    # to the stored record (formats.hudi.change_reads.returns_lost_writes): its
    # written rows are then read from the snapshot (written_filter).
    incremental_exact: bool = True


# Hudi's folder for the rows whose partition value is null.
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def partition_values(paths: Iterable[str]) -> tuple[tuple[str, ...], Partitions] | None:
    """(the partition columns, each partition's (column, value) pairs) of
    Hudi's hive-style partition paths: `event_date=2024-05-01`, `a=1/b=x`, as
    its commit metadata lists them; None when one is not of that form (a
    table not partitioned, or not hive-style), so that nothing is pruned. A
    value is the text the writer wrote (None for the null partition); a
    query compares it with the column as text."""
    partitions = []
    columns: tuple[str, ...] = ()
    for path in sorted(set(paths)):
        parts = [part.partition("=") for part in path.split("/")]
        if any(
            not sep or not column or "`" in column or "'" in value or "\\" in value
            for column, sep, value in parts
        ):
            return None
        named = tuple(column for column, _, _ in parts)
        if columns and named != columns:  # not one layout: a table repartitioned
            return None
        columns = named
        partitions.append(
            tuple(
                (column, None if value == NULL_PARTITION else value) for column, _, value in parts
            )
        )
    if not partitions:
        return None
    return columns, tuple(partitions)


def rows_from(
    model: Mapping[str, Any], nodes: Mapping[str, Mapping[str, Any]]
) -> tuple[Mapping[str, Any], str, tuple[str, ...]] | None:
    """(upstream node, key, partition columns) that `model` declares its rows
    follow (meta lakehouse_rows_from), or None; a declaration that names no
    direct upstream model or no key fails with what to write instead. The
    optional `partition_by` names the upstream's partition columns when
    `model` has them too, with each row's values: its rows are then read from
    the partitions the upstream's writes touched."""
    declared = ((model.get("config") or {}).get("meta") or {}).get(ROWS_FROM_KEY)
    if not declared:
        return None
    name = model.get("name", "")
    upstream = declared.get("model") if isinstance(declared, Mapping) else None
    key = declared.get("key") if isinstance(declared, Mapping) else None
    partition_by = (declared.get("partition_by") or ()) if isinstance(declared, Mapping) else ()
    if isinstance(partition_by, str):
        partition_by = (partition_by,)
    columns_ok = isinstance(partition_by, (list, tuple)) and all(
        isinstance(c, str) for c in partition_by
    )
    if not upstream or not key or not isinstance(key, str) or not columns_ok:
        raise CompilationError(
            f"'{name}': meta {ROWS_FROM_KEY} is {declared!r}; write it as a model this one selects from and the "
            f"key they share, e.g. {{model: fct_events, key: event_id}}, and optionally the partition "
            f"columns they share, e.g. partition_by: event_date."
        )
    for unique_id in (model.get("depends_on") or {}).get("nodes") or []:
        node = nodes.get(unique_id) or {}
        if node.get("resource_type") == "model" and node.get("name") == upstream:
            return node, key, tuple(partition_by)
    raise CompilationError(
        f"'{name}': meta {ROWS_FROM_KEY} names model {upstream!r}, which '{name}' does not select from "
        f"(ref it in its SQL, or name the model it does ref)."
    )
