"""How writers of one Hudi table are kept apart: the profile's `concurrency`.

`single_writer` (Hudi's default mode): one writer per table at a time. On the
embedded session the lake lock (lake/lock.py) makes it so: one process per lake.
A write that starts rolls back whatever it finds in flight, taking it for the
leftovers of a dead writer, which is how a killed run is recovered at once.

`optimistic`: several writers at once (Spark applications sharing a catalog, an
ingestion job beside dbt, several runs on one server). Each commit takes a lock,
checks that no commit completed since it started touched the same file groups,
and fails with a write conflict if one did (the table is unchanged; run again).
A writer's leftovers are rolled back lazily, once its heartbeat has expired,
since an instant in flight may belong to a live writer.

The lock provider decides who can see the lock:
- `filesystem` (the default): a lock file in the table's own `.hoodie` folder,
  seen by every writer of the table, whichever process, machine or catalog it
  comes from, as long as they share the storage;
- `in_process`: a lock inside one JVM (several sessions of one Thrift or Connect
  server); other processes do not see it;
- `zookeeper`: a lock in ZooKeeper, one per table (Hudi derives its path from
  the table's location), seen by every writer that reaches the ensemble named
  by `hoodie.write.lock.zookeeper.url` in `server_side_parameters`: the
  provider for writers that share a table on object storage, where a lock file
  is not a lock (docs/object-storage.md);
- any other value: the class name of a Hudi lock provider (Hive metastore,
  DynamoDB, ...), whose own `hoodie.write.lock.*` settings go into
  `server_side_parameters`.

The settings are session settings of every connection; a `hoodie.*` key set in
`server_side_parameters` wins over the one chosen here.
"""

from __future__ import annotations

from collections.abc import Mapping

SINGLE_WRITER = "single_writer"
OPTIMISTIC = "optimistic"
MODES = (SINGLE_WRITER, OPTIMISTIC)

LOCK_PROVIDERS = {
    "filesystem": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
    "in_process": "org.apache.hudi.client.transaction.lock.InProcessLockProvider",
    "zookeeper": "org.apache.hudi.client.transaction.lock.ZookeeperBasedImplicitBasePathLockProvider",
}
# Where the zookeeper provider finds its ensemble: host:port[,host:port...].
ZOOKEEPER_URL = "hoodie.write.lock.zookeeper.url"

# A lock file left by a writer killed while it held the lock (the lock is held
# only around a commit's conflict check, seconds) is taken as abandoned after
# this many minutes; Hudi's default, 0, keeps it for ever and wedges the table.
LOCK_FILE_EXPIRY_MINUTES = "1"
# Attempts at the lock, 1 s apart growing to 5 s (Hudi's waits): about two
# minutes in all, so a writer that meets an abandoned lock file outlasts its
# expiry instead of failing (Hudi's 15 attempts last about as long as it).
LOCK_ATTEMPTS = "30"


class ConcurrencyConfigError(ValueError):
    pass


def resolve_mode(configured: str | None, shared_catalog: bool) -> str:
    """The profile's mode, or the default: optimistic when the catalog is shared
    (nothing else keeps the applications using it apart), else single writer."""
    if configured is None:
        return OPTIMISTIC if shared_catalog else SINGLE_WRITER
    mode = str(configured).strip().lower()
    if mode not in MODES:
        raise ConcurrencyConfigError(
            f"Profile setting concurrency: {configured!r} is not one of {', '.join(MODES)}. "
            f"Use {OPTIMISTIC} when several Spark applications or jobs write the same tables."
        )
    return mode


def provider_class(lock_provider: str) -> str:
    """The Hudi class a lock_provider names (a short name, or a class name)."""
    name = str(lock_provider).strip()
    return LOCK_PROVIDERS.get(name.lower(), name)


def hudi_settings(
    mode: str, lock_provider: str, parameters: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The `hoodie.*` session settings of a mode (none for single_writer);
    `parameters` are the profile's own server_side_parameters."""
    if mode != OPTIMISTIC:
        return {}
    provider = provider_class(lock_provider)
    if "." not in provider:
        raise ConcurrencyConfigError(
            f"Profile setting lock_provider: {lock_provider!r} is neither one of "
            f"{', '.join(LOCK_PROVIDERS)} nor the class name of a Hudi lock provider."
        )
    settings = {
        "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
        # Another writer's instant in flight is not garbage: roll back only
        # what a writer whose heartbeat stopped left behind.
        "hoodie.cleaner.policy.failed.writes": "LAZY",
        "hoodie.write.lock.provider": provider,
        "hoodie.write.lock.num_retries": LOCK_ATTEMPTS,
    }
    if provider == LOCK_PROVIDERS["filesystem"]:
        settings["hoodie.write.lock.filesystem.expire"] = LOCK_FILE_EXPIRY_MINUTES
    if provider == LOCK_PROVIDERS["zookeeper"] and not (parameters or {}).get(ZOOKEEPER_URL):
        raise ConcurrencyConfigError(
            f"Profile setting lock_provider: zookeeper needs the ensemble's address: add "
            f"{ZOOKEEPER_URL}: 'host:port' (several comma-separated) to server_side_parameters."
        )
    return settings


def check_lock_storage(mode: str, lock_provider: str, warehouse: str | None) -> None:
    """Refuse a lock file on s3a://: Hadoop 3.3's S3 client creates a file
    "only if absent" as a check and then a write, so two writers can both
    take it."""
    if (
        mode == OPTIMISTIC
        and provider_class(lock_provider) == LOCK_PROVIDERS["filesystem"]
        and str(warehouse or "").startswith("s3a://")
    ):
        raise ConcurrencyConfigError(
            f"Profile settings concurrency: optimistic with lock_provider: filesystem on "
            f"{warehouse}: a lock file on S3 is not atomic, two writers could both hold it. "
            f"Use lock_provider: zookeeper (with {ZOOKEEPER_URL} in server_side_parameters), "
            "or in_process when every writer is a session of one server."
        )
