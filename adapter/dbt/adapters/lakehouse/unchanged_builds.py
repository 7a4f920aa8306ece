"""A `table` model rebuilt only when something it is built from has changed.

With `skip_unchanged: true`, a Hudi table model records in its commit what it
was built from: a digest of its compiled SQL and config, and the latest
completed instant of each upstream it selects from. The next run computes the
same; if they are equal, nothing the model reads has a new commit, so the
rebuild would write the same rows: it is skipped, with no Spark work and no
commit. This is what lets a micro-batch run on data that did not change write
nothing at all.

Only Hudi upstreams have an instant to compare: a model that also reads a
view, a seed, an ephemeral model or any other non-Hudi relation is always
rebuilt. The model's SQL must be a function of its upstreams (no
current_date(), rand(), ...) for a skip to be right: that is why it is opt-in.

An incremental model with `skip_unchanged: true` is not run when every range
it reads with lake_changes is empty and its other upstreams have no new
commit: its record is the digest of its source code (not the compiled SQL,
which names each run's ranges) and config, and the latest instant of each
upstream it does not read by commit range.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from dbt.adapters.lakehouse.commit_reads import COMMIT_META_PREFIX

BUILT_FROM_KEY = COMMIT_META_PREFIX + "built_from"


def built_from(
    sql: str, config: Mapping[str, Any], upstream_instants: Mapping[str, str | None]
) -> str | None:
    """What a build reads, as one string; None when an upstream has no instant
    to compare (not a Hudi table, or never committed to)."""
    if any(instant is None for instant in upstream_instants.values()):
        return None
    definition = json.dumps({"sql": sql, "config": config}, sort_keys=True, default=str)
    upstreams = ",".join(f"{name}@{instant}" for name, instant in sorted(upstream_instants.items()))
    return f"{hashlib.sha256(definition.encode()).hexdigest()[:16]};{upstreams}"
