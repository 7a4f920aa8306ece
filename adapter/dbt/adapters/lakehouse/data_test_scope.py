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
    # Once the write is done: a filter on the partition columns that keeps the
    # partitions the later commits wrote (partitions_predicate), so that a
    # query for their rows reads only those partitions. None: all of them.
    partitions: str | None = None
    partition_columns: tuple[str, ...] = ()
    # False when the table's incremental query can return a write that lost
    # to the stored record (change_reads.planner.returns_lost_writes): its
    # written rows are then read from the snapshot (written_filter).
    incremental_exact: bool = True


def written_rows(relation: str, since: Since) -> str:
    """The rows of `relation` that later commits wrote, as they are now: a
    Hudi incremental read, which opens only the files those commits wrote."""
    return f"hudi_table_changes('{relation}', 'latest_state', '{since.completed}')"


def written_filter(since: Since) -> str:
    """The same rows as a filter. It reads every file of the partitions the
    commits wrote (of the whole table when they are not known), but can sit
    in a query that reads the table again: Spark 3.5 fails (an internal
    assertion in ColumnarToRowExec, when it looks for an exchange to reuse)
    on some queries that read a table both whole and incrementally."""
    later = f"_hoodie_commit_time > '{since.instant}'"
    return f"{since.partitions} and {later}" if since.partitions else later


# Hudi's folder for the rows whose partition value is null.
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def partitions_predicate(paths: Iterable[str]) -> tuple[tuple[str, ...], str] | None:
    """(the partition columns, a filter that keeps the partitions named by
    Hudi's hive-style partition paths: `event_date=2024-05-01`, `a=1/b=x`, as
    its commit metadata lists them); None when one is not of that form (a
    table not partitioned, or not hive-style), so that nothing is pruned. The
    columns are compared as strings: a path holds the value's text, as the
    writer cast it."""
    alternatives = []
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
        terms = [
            f"`{column}` is null"
            if value == NULL_PARTITION
            else f"cast(`{column}` as string) = '{value}'"
            for column, _, value in parts
        ]
        alternatives.append("(" + " and ".join(terms) + ")")
    if not alternatives:
        return None
    return columns, "(" + " or ".join(alternatives) + ")"


def scoped_relation(
    relation: str, kind: tuple[str, list[str]], since: Since, where: str = ""
) -> str:
    """What a test of this kind must read of `relation` after the writes that
    came after `since`, as a subquery for its FROM clause."""
    scope, keys = kind
    if scope == "rows":
        if not since.incremental_exact:
            return keyed_rows(relation, written_filter(since), where)
        filtered = f" where ({where})" if where else ""
        return f"(select * from {written_rows(relation, since)}{filtered}) dbt_subquery"
    changed = written_filter(since) + (f" and ({where})" if where else "")
    columns = ", ".join(keys)
    target = keys[0] if len(keys) == 1 else f"({columns})"
    keyed = f"{target} in (select {columns} from {relation} where {changed})"
    return keyed_rows(relation, keyed, where)


def keyed_rows(relation: str, keyed: str, where: str = "") -> str:
    """`relation`'s rows that pass `keyed` (and the test's `where`), as a
    subquery for a test's FROM clause."""
    return (
        f"(select * from {relation} where {keyed}{f' and ({where})' if where else ''}) dbt_subquery"
    )


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


def rows_from_relation(
    relation: str,
    upstream: str,
    key: str,
    since: Since,
    where: str = "",
    partition_by: tuple[str, ...] = (),
) -> str:
    """The rows of `relation` whose `key` the writes to `upstream` after
    `since` wrote: for both row and key tests, since each row of `relation`
    is the upstream's row of that key. (A filter on the upstream, not an
    incremental read: `relation` reads the upstream whole.) With the
    upstream's `partition_by` columns, `relation`'s rows are read from the
    partitions the writes touched only."""
    keyed = f"{key} in (select {key} from {upstream} where {written_filter(since)})"
    if since.partitions and partition_by and tuple(partition_by) == since.partition_columns:
        keyed = f"{since.partitions} and {keyed}"
    return keyed_rows(relation, keyed, where)


def changed_values_sql(written: list[tuple[str, Since]], columns: list[str]) -> str:
    """The distinct values of `columns` among the rows written to each
    (relation, since) pair: the groups a reconciliation must compare. (A
    filter, not an incremental read: the reconciliation reads the same
    tables whole.)"""
    selected = ", ".join(columns)
    return " union ".join(
        f"select {selected} from {relation} where {written_filter(since)}"
        for relation, since in written
    )
