"""The `hoodie.*` settings of one write, on the connection's Spark session.

Hudi reads its write configs from the session (they beat table properties), so
each write sets what it needs and clears them after. Sessions are per
connection, so a write's settings never reach another thread's write.

A write's settings replace whatever the connection holds beyond its own
baseline (the profile's concurrency control, its server_side_parameters),
including settings left by a write that failed before it could clear them.
Only the difference is applied. On the embedded session it goes straight to the
session's configuration: a model sets and clears 20 to 50 keys, and each as a
`SET` statement costs 10-15 ms of Spark SQL plus dbt's statement handling. On
a Thrift server it is sent as `SET`/`RESET` statements (connections.SessionConf,
their SQL the macros of statements/session.sql).
"""

from __future__ import annotations

from collections.abc import Mapping

# Besides hoodie.*, the one Spark setting a write may make (insert_overwrite's).
OTHER_WRITE_KEYS = frozenset({"spark.sql.sources.partitionOverwriteMode"})


def is_write_key(key: str) -> bool:
    return key.startswith("hoodie.") or key in OTHER_WRITE_KEYS


def plan(
    current: Mapping[str, str], baseline: Mapping[str, str], wanted: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    """(keys to reset, keys to set with their values) that take a session whose
    settings are `current` to `baseline` with `wanted` on top, for the write
    keys; other settings are left alone."""
    target = {**baseline, **{k: str(v) for k, v in wanted.items()}}
    resets = sorted(k for k in current if is_write_key(k) and k not in target)
    sets = {k: v for k, v in target.items() if current.get(k) != v}
    return resets, sets
