"""An S3-compatible object store on 127.0.0.1, for the lake on s3a://: s3proxy
(Apache-2.0, from Maven Central) with its file-system backend.

    python -m adlake.servers.object_store start  [--port 9000] [--dir .lake-s3] [--bucket adlake]
    python -m adlake.servers.object_store status|stop [--dir .lake-s3]

The access keys come from the environment (ACCESS_KEY_ENV, SECRET_KEY_ENV;
`start` refuses to run without them) and go into <dir>/s3proxy.properties
(mode 0600), never on the server's command line. The objects are files under
<dir>/data/<bucket>/: the bucket is created on start, as a folder of the
backend. `start` returns once the server answers on its port, with the process
id in <dir>/s3proxy.pid, what it serves in <dir>/s3proxy.json and its log in
<dir>/logs/s3proxy.log; `stop` ends it by its process id.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from adlake import ROOT
from adlake.s3_client import ACCESS_KEY_ENV, SECRET_KEY_ENV
from adlake.servers import processes
from adlake.servers.processes import LOOPBACK
from dbt.adapters.lakehouse import maven

DEFAULT_PORT = 9000
DEFAULT_BUCKET = "adlake"
JARS_DIR = ROOT / ".cache" / "jars"
SERVER_JAR = maven.MavenJar("org.gaul", "s3proxy", "4.1.0", "jar-with-dependencies")
# S3's rule for bucket names: 3-63 lower-case letters, digits, dots and hyphens.
BUCKET_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


class ObjectStoreError(Exception):
    pass


class Files(processes.ServerFiles):
    def __init__(self, root: Path) -> None:
        super().__init__(root, "s3proxy")

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def properties(self) -> Path:
        return self.root / "s3proxy.properties"


def default_dir() -> Path:
    return ROOT / ".lake-s3"


def server_jar() -> Path:
    """s3proxy's jar with its dependencies, fetched into the project's jar
    cache the first time (as the Hudi bundle is)."""
    try:
        return maven.fetch_jar(SERVER_JAR, "the S3 server (s3proxy)", JARS_DIR, notify=print)
    except maven.JarError as exc:
        raise ObjectStoreError(
            f"the S3 server {SERVER_JAR.coordinates} is not in {JARS_DIR} and could not be "
            f"fetched ({exc}); set LAKEHOUSE_MAVEN_REPOSITORY to a Maven mirror, or put "
            f"{SERVER_JAR.jar_name} there"
        ) from exc


def keys_from_environment() -> tuple[str, str]:
    access, secret = os.environ.get(ACCESS_KEY_ENV, ""), os.environ.get(SECRET_KEY_ENV, "")
    missing = [
        name for name, value in ((ACCESS_KEY_ENV, access), (SECRET_KEY_ENV, secret)) if not value
    ]
    if missing:
        raise ObjectStoreError(
            f"{' and '.join(missing)} unset or empty: export the access key and secret key "
            "the S3 server is to accept (any strings you choose; clients use the same)"
        )
    return access, secret


def _properties(files: Files, port: int, access: str, secret: str) -> str:
    conf = {
        "s3proxy.endpoint": f"http://{LOOPBACK}:{port}",
        # Hadoop's s3a signs with version 4; older clients with version 2.
        "s3proxy.authorization": "aws-v2-or-v4",
        "s3proxy.identity": access,
        "s3proxy.credential": secret,
        # Objects as plain files: what a test reads back, and kept across restarts.
        "jclouds.provider": "filesystem-nio2",
        "jclouds.filesystem.basedir": str(files.data),
    }
    # Java properties: backslashes doubled; the keys hold no '=' or ':'.
    return "".join(f"{key}={value.replace(chr(92), chr(92) * 2)}\n" for key, value in conf.items())


def start(
    port: int = DEFAULT_PORT,
    directory: Path | None = None,
    bucket: str = DEFAULT_BUCKET,
    timeout: float = 60,
    log_requests: bool = False,
) -> int:
    """Start the server with `bucket` in it; returns its process id once it
    answers. `log_requests`: one line per request in its log (s3proxy's
    debug level), for logged_requests() and request_counts()."""
    files = Files((directory or default_dir()).resolve())
    if not BUCKET_NAME.match(bucket):
        raise ObjectStoreError(
            f"bucket {bucket!r} is not an S3 bucket name (3-63 lower-case letters, digits, "
            "dots and hyphens)"
        )
    running = status(files.root)
    if running and running["alive"]:
        raise ObjectStoreError(
            f"an S3 server already runs from {files.root} (pid {running['pid']})"
        )
    if processes.port_open(port):
        raise ObjectStoreError(f"port {port} is already in use on {LOOPBACK}")
    access, secret = keys_from_environment()
    jar = server_jar()
    (files.data / bucket).mkdir(parents=True, exist_ok=True)
    processes.write_private(files.properties, _properties(files, port, access, secret))
    cmd = [processes.java(), "-jar", str(jar), "--properties", str(files.properties)]
    env = dict(os.environ, LOG_LEVEL="debug") if log_requests else dict(os.environ)
    process = processes.spawn(cmd, env, files.log, cwd=files.root)
    files.pid.write_text(str(process.pid))
    state = {"pid": process.pid, "endpoint": f"http://{LOOPBACK}:{port}", "bucket": bucket}
    files.state.write_text(json.dumps(state, indent=2) + "\n")
    try:
        processes.wait_listening(process, port, files.log, timeout)
    except processes.NotListening as exc:
        stop(files.root)
        raise ObjectStoreError(f"the S3 server {exc}") from exc
    return process.pid


# s3proxy's debug line for a request: "request: ...{METHOD@id URL HTTP/1.1}".
REQUEST_LINE = re.compile(r"request: .*\{(GET|PUT|HEAD|POST|DELETE)@\w+ (\S+) HTTP/")


def logged_requests(log: Path, offset: int = 0) -> tuple[list[tuple[str, str]], int]:
    """The requests a server started with log_requests logged after byte
    `offset` of its log, each as (kind, what it named: the object's key, or
    for a listing its prefix), and the log's end, the next call's offset.
    Kinds: LIST (a GET of a bucket), GET, HEAD, PUT (copies included, which
    Hadoop's rename makes), POST (multi-object deletes and multipart
    uploads), DELETE."""
    found = []
    with open(log, "rb") as handle:
        handle.seek(offset)
        text = handle.read()
    for line in text.decode(errors="replace").splitlines():
        match = REQUEST_LINE.search(line)
        if match is None:
            continue
        method, url = match.groups()
        parts = urlsplit(url)
        key = unquote(parts.path.strip("/").partition("/")[2])
        query = parse_qs(parts.query)
        if method == "GET" and (not key or "list-type" in query):
            found.append(("LIST", query.get("prefix", [""])[0]))
        else:
            found.append((method, key))
    return found, offset + len(text)


def request_counts(log: Path, offset: int = 0) -> tuple[Counter[str], int]:
    """How many requests of each kind were logged after `offset` (see
    logged_requests), and the log's end."""
    found, end = logged_requests(log, offset)
    return Counter(kind for kind, _ in found), end


def stop(directory: Path | None = None, timeout: float = 30) -> None:
    files = Files((directory or default_dir()).resolve())
    processes.end_recorded(files.pid, timeout)


def status(directory: Path | None = None) -> dict | None:
    """What the server in `directory` serves and whether it is alive; None
    when none was started there."""
    files = Files((directory or default_dir()).resolve())
    state = processes.recorded_state(files.state, files.pid, files.log)
    if state is not None:
        state["data"] = str(files.data)
    return state


def main(argv: list[str] | None = None) -> int:
    def started(args: argparse.Namespace) -> str:
        pid = start(args.port, args.dir, args.bucket)
        log = Files((args.dir or default_dir()).resolve()).log
        return f"S3 server on http://{LOOPBACK}:{args.port}, bucket {args.bucket}, pid {pid}, log {log}"

    return processes.server_command(
        argv,
        tool="object_store",
        description="An S3-compatible server on 127.0.0.1 (s3proxy)",
        default_dir=default_dir(),
        default_port=DEFAULT_PORT,
        error=ObjectStoreError,
        start=started,
        stop=stop,
        status=status,
        options=lambda parser: parser.add_argument(
            "--bucket", default=DEFAULT_BUCKET, help="created on start"
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
