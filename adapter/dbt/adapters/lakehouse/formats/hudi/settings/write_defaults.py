"""Hudi settings the adapter picks for every table, where Hudi's own defaults
suit large tables on a cluster and make each small commit slow.

A dbt model writes a commit per run, often a small one, on one machine: its
fixed cost is what the user waits for. Measured on a 2-core machine, a
1,000-row upsert took about 3.5 s (COW) and 6.5 s (MOR) with Hudi's defaults,
and about 1.2 s and 1.4 s with these (`python -m adlake.bench.small_commits`).

They are recorded on the table at creation (and added to older tables on their
next write), so Hudi's procedures (`CALL run_compaction`, `run_clean`, ...) and
other Spark jobs writing the table use them too. They are defaults, not owned
keys. A target's `server_side_parameters` may set any of them for every model
it builds (`for_target`), for example another parquet codec; a model's
`hudi_options` (or `options`) overrides both.
"""

from __future__ import annotations

from collections.abc import Mapping

WRITE_DEFAULTS: dict[str, str] = {
    # The metadata table is a second merge-on-read Hudi table updated inside
    # every commit (about 1 s each here). It saves file listings, which on a
    # local or HDFS file system cost little, and it is what a writer killed
    # mid-compaction leaves half-done (see formats/hudi/recovery.py). On S3 a build made
    # more requests with it than without, and Hudi 1.2.0 leaks connections
    # reading it (docs/object-storage.md).
    "hoodie.metadata.enable": "false",
    # The table is in the Spark catalog already (CREATE TABLE, and ALTER TABLE
    # for schema changes); syncing it to the Hive metastore again after each
    # commit was the largest single cost of a small commit.
    "hoodie.datasource.meta.sync.enable": "false",
    "hoodie.datasource.hive_sync.enable": "false",
    # An embedded timeline server (an HTTP server started for each write) and
    # the markers kept through it serve executors on other hosts; in one JVM
    # plain marker files do the same job.
    "hoodie.embed.timeline.server": "false",
    "hoodie.write.markers.type": "DIRECT",
    # Hudi compresses its parquet files with gzip unless told otherwise; a
    # profile of 100k-event batches on 2 cores found zlib's deflate and
    # inflate in about a tenth of the busy JVM samples. Snappy, Spark's own
    # default for parquet: a 100k-row upsert into a 1.3M-row table 10-13%
    # faster, files 13-34% larger (adapter/README.md).
    "hoodie.parquet.compression.codec": "snappy",
}


def for_target(target_settings: Mapping[str, str]) -> dict[str, str]:
    """The write defaults with the target's own value of any of them (its
    server_side_parameters): a target's choice beats the adapter's, and a
    model's `hudi_options` beat both. Only these keys: the target's other
    hoodie.* settings are the connection's baseline already, and a typed
    config's key is the model's to set."""
    return {key: str(target_settings.get(key, value)) for key, value in WRITE_DEFAULTS.items()}
