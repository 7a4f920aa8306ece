"""A warehouse on an object store, checked once when the embedded session starts.

Hadoop's S3 client retries a refused connection or a failed request for
minutes with its defaults (the AWS SDK's retries inside each of S3A's own),
so wrong keys, a bucket that does not exist or a server that is down would
surface as a model's write hanging, then a stack trace. The probe asks the
store for the warehouse's folder once, through a file system of its own with
one attempt and short time-outs, and turns each of those failures into an
error that names the endpoint, the setting and the fix. The session's own
file system keeps its retries (bounded by storage.session_defaults, or the
profile's): a store that stops answering mid-run fails that run once they
are spent, and `store_lost` says so; `connections_exhausted` explains a
statement that found no free connection in the client's pool.
"""

from __future__ import annotations

import re
import time
from typing import Any

from dbt.adapters.events.logging import AdapterLogger
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.storage.locations import is_local, scheme

logger = AdapterLogger("Lakehouse")

# For the probe's file system only: one request, no retry, a short wait for
# the connection (a store on the other side of the world answers in well
# under a second).
S3A_PROBE_SETTINGS = {
    "fs.s3a.attempts.maximum": "1",
    "fs.s3a.retry.limit": "1",
    "fs.s3a.retry.interval": "100ms",
    "fs.s3a.connection.establish.timeout": "5000",
    "fs.s3a.connection.timeout": "10000",
}
KEYS_FIX = (
    "set spark.hadoop.fs.s3a.access.key and spark.hadoop.fs.s3a.secret.key in the "
    "profile's spark_conf (from env_var()), or AWS_ACCESS_KEY_ID and "
    "AWS_SECRET_ACCESS_KEY in dbt's environment"
)


def check_warehouse_reachable(session: Any, location: str) -> None:
    """Raise a DbtRuntimeError naming the fix when the store that holds
    `location` refuses or cannot be reached; nothing for a local warehouse."""
    if is_local(location):
        return
    from py4j.protocol import Py4JJavaError

    jvm = session._jvm
    conf = jvm.org.apache.hadoop.conf.Configuration(session._jsc.hadoopConfiguration())
    kind = scheme(location)
    if kind == "s3a":
        for key, value in S3A_PROBE_SETTINGS.items():
            conf.set(key, value)
    # A file system of the probe's own: Hadoop caches one per scheme and
    # bucket, and the session's must keep its own retry settings.
    conf.setBoolean(f"fs.{kind}.impl.disable.cache", True)
    path = jvm.org.apache.hadoop.fs.Path(location)
    started = time.monotonic()
    try:
        store = path.getFileSystem(conf)
        try:
            store.exists(path)
        finally:
            store.close()
    except Py4JJavaError as exc:
        causes = _causes(exc.java_exception)
        raise DbtRuntimeError(explain(location, _endpoint(location, conf), causes)) from None
    finally:
        logger.debug(f"Probed {location} in {time.monotonic() - started:.2f} s")


def _causes(error: Any) -> list[tuple[str, str]]:
    """(class name, message) of a Java exception and its causes, outermost first."""
    found: list[tuple[str, str]] = []
    while error is not None and len(found) < 10:
        found.append((error.getClass().getName(), str(error.getMessage() or "")))
        error = error.getCause()
    return found


def _endpoint(location: str, conf: Any) -> str:
    """The S3 endpoint Hadoop uses for the location's bucket."""
    bucket = location.split("://", 1)[1].split("/", 1)[0]
    return str(
        conf.get(f"fs.s3a.bucket.{bucket}.endpoint")
        or conf.get("fs.s3a.endpoint")
        or "AWS S3 (no fs.s3a.endpoint set)"
    )


def explain(location: str, endpoint: str, causes: list[tuple[str, str]]) -> str:
    """The message for a failed probe of `location`, from the Java exception's
    (class name, message) and its causes'."""
    # The innermost cause says what happened (Connection refused, 403...);
    # the outer ones repeat it with Hadoop's and the SDK's wrappings.
    name, message = causes[-1]
    first = f"{name.rsplit('.', 1)[-1]}: {message.splitlines()[0] if message else ''}".strip()
    names = " ".join(name for name, _ in causes)
    text = " ".join(message for _, message in causes)
    where = f"warehouse_dir: {location}"
    if scheme(location) != "s3a":
        return f"{where}: the store cannot be read ({first}); check the profile's spark_conf"
    bucket = location.split("://", 1)[1].split("/", 1)[0]
    # Connection failures first: their messages carry ports and hosts, which
    # may hold any digits.
    if any(
        marker in names + " " + text
        for marker in (
            "ConnectException",
            "Connection refused",
            "UnknownHostException",
            "SocketTimeoutException",
            "ConnectTimeoutException",
            "Unable to execute HTTP request",
        )
    ):
        return (
            f"{where}: cannot reach the S3 store at {endpoint} ({first}): start it, or set "
            "spark.hadoop.fs.s3a.endpoint in the profile's spark_conf to where it listens "
            "(with spark.hadoop.fs.s3a.path.style.access: 'true' and "
            "spark.hadoop.fs.s3a.connection.ssl.enabled: 'false' for a server without "
            "virtual-host buckets or TLS)"
        )
    if "AccessDeniedException" in names or "Status Code: 403" in text:
        return (
            f"{where}: the S3 store at {endpoint} refused the access keys for bucket "
            f"{bucket} (403 Forbidden): {KEYS_FIX}"
        )
    if "UnknownStoreException" in names or "NoSuchBucket" in text:
        return (
            f"{where}: the S3 store at {endpoint} has no bucket {bucket}: create it, or "
            "name an existing bucket in warehouse_dir"
        )
    return f"{where}: the S3 store at {endpoint} failed the first request ({first})"


# What the S3 client's error says when the store stopped answering mid-run,
# once its retries are spent (the message of a Spark or Hudi error around it).
STORE_LOST = re.compile(
    r"(AWSClientIOException|SdkClientException): .*?Unable to execute HTTP request: "
    r"(?:Connect to )?(\S+?)(?: \[[^]]*\])? failed: (Connection refused|connect timed out|"
    r"Read timed out)"
)


def store_lost(message: str) -> str | None:
    """The explanation for a statement that failed because the object store
    stopped answering; None for any other failure."""
    found = STORE_LOST.search(message)
    if found is None:
        return None
    return (
        f"The object store at {found.group(2)} stopped answering while this statement ran "
        f"({found.group(3)}, after the S3 client's retries: fs.s3a.attempts.maximum and "
        "fs.s3a.retry.limit). A write it interrupted stays in flight and is rolled back by "
        "the table's next write: once the store answers, run again."
    )


def connections_exhausted(message: str) -> str | None:
    """The explanation for a statement that failed because every connection
    of the S3 client's pool was taken; None for any other failure."""
    if "Timeout waiting for connection from pool" not in message:
        return None
    return (
        "Every connection of the S3 client's pool (spark.hadoop.fs.s3a.connection.maximum) "
        "was taken while this statement ran. With Hudi's metadata table on, Hudi 1.2.0 "
        "leaves a connection open for each metadata log block it reads (apache/hudi#19936): "
        "turn it off (hoodie.metadata.enable: false, the adapter's default) or use a Hudi "
        "bundle with the fix. A write it interrupted is rolled back by the table's next write."
    )
