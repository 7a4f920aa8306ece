"""The project's real S3 server (adlake.servers.object_store) for a test, and
the profile settings that point the embedded session's s3a:// at it.

The server's keys go to it through the environment of its start command
only; a dbt run gets them through the profile's env_var()s, from variables the
test sets for that run (`run_env`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adlake import s3_client
from adlake.servers import object_store
from adlake.servers.catalog import free_port

# The variables a test's profile reads the keys from.
ACCESS_ENV, SECRET_ENV = "S3_TEST_ACCESS_KEY", "S3_TEST_SECRET_KEY"


def env_var(name: str) -> str:
    """The profile's Jinja for an environment variable."""
    return "{{ env_var('" + name + "') }}"


class Store:
    def __init__(self, folder: Path, port: int, bucket: str, access: str, secret: str) -> None:
        self.folder, self.port, self.bucket = folder, port, bucket
        self.access, self.secret = access, secret
        self.endpoint = f"http://127.0.0.1:{port}"

    @property
    def data(self) -> Path:
        """Where the server keeps the bucket's objects, as files."""
        return self.folder / "data" / self.bucket

    def start(self) -> None:
        keys = {object_store.ACCESS_KEY_ENV: self.access, object_store.SECRET_KEY_ENV: self.secret}
        subprocess.run(
            [sys.executable, "-m", "adlake.servers.object_store", "start"]
            + ["--port", str(self.port), "--dir", str(self.folder), "--bucket", self.bucket],
            env={**os.environ, **keys},
            check=True,
            capture_output=True,
            timeout=120,
        )

    def stop(self) -> None:
        object_store.stop(self.folder)

    def spark_conf(self) -> dict[str, str]:
        """The profile's Hadoop settings for this server, the keys from env_var()."""
        return {
            "spark.hadoop.fs.s3a.access.key": env_var(ACCESS_ENV),
            "spark.hadoop.fs.s3a.secret.key": env_var(SECRET_ENV),
            "spark.hadoop.fs.s3a.endpoint": self.endpoint,
            "spark.hadoop.fs.s3a.path.style.access": "true",
            "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
        }

    def run_env(self, secret: str | None = None) -> dict[str, str]:
        """The environment of a dbt run whose profile reads spark_conf()."""
        return {**os.environ, ACCESS_ENV: self.access, SECRET_ENV: secret or self.secret}

    def landing_env(self) -> dict[str, str]:
        """What a producer landing files in the bucket (adlake.landing) reads."""
        return {
            s3_client.ENDPOINT_ENV: self.endpoint,
            s3_client.ACCESS_KEY_ENV: self.access,
            s3_client.SECRET_KEY_ENV: self.secret,
        }


@contextmanager
def running_store(folder: Path, bucket: str, access: str, secret: str) -> Iterator[Store]:
    """A server on a free port with `bucket`, stopped by its pid on the way out."""
    store = Store(Path(folder), free_port(), bucket, access, secret)
    store.start()
    try:
        yield store
    finally:
        store.stop()
