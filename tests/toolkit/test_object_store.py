"""The S3-compatible server the project starts (adlake.servers.object_store):
a real s3proxy on 127.0.0.1, its bucket made on start, requests signed with
the keys from the environment answered and others refused, the secret never
on its command line, stopped by its process id."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adlake.s3_client import S3Client
from adlake.servers import object_store, processes
from adlake.servers.catalog import free_port

ACCESS, SECRET = "adlake-test-access", "adlake-test-secret-0123456789"


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv(object_store.ACCESS_KEY_ENV, ACCESS)
    monkeypatch.setenv(object_store.SECRET_KEY_ENV, SECRET)


def test_serves_its_bucket_to_signed_requests_and_stops_by_its_pid(tmp_path, keys):
    port = free_port()
    folder = tmp_path / "s3"
    pid = object_store.start(port, folder, bucket="lake-test")
    try:
        state = object_store.status(folder)
        assert state is not None and state["alive"] and state["pid"] == pid
        endpoint = state["endpoint"]
        assert endpoint == f"http://127.0.0.1:{port}"
        # The secret is in its settings file, readable by its owner only,
        # not on its command line.
        assert (folder / "s3proxy.properties").stat().st_mode & 0o077 == 0
        assert SECRET not in Path(f"/proc/{pid}/cmdline").read_bytes().decode()

        client = S3Client(endpoint, ACCESS, SECRET)
        status, _ = client.request("PUT", "/lake-test/warehouse/t/part-0.parquet", b"rows")
        assert status == 200
        status, body = client.request("GET", "/lake-test/warehouse/t/part-0.parquet")
        assert (status, body) == (200, b"rows")
        status, listing = client.request("GET", "/lake-test")
        assert status == 200 and b"<Key>warehouse/t/part-0.parquet</Key>" in listing
        # The object is a file of the backend, under the bucket's folder.
        stored = Path(state["data"]) / "lake-test" / "warehouse" / "t" / "part-0.parquet"
        assert stored.read_bytes() == b"rows"

        # A wrong secret, and a bucket that was never made, are refused.
        status, body = S3Client(endpoint, ACCESS, "not-the-secret").request("GET", "/lake-test")
        assert status == 403, body
        status, body = client.request("GET", "/no-such-bucket")
        assert status == 404 and b"NoSuchBucket" in body

        # A second server on the same folder is refused, naming the running one.
        with pytest.raises(object_store.ObjectStoreError, match=f"pid {pid}"):
            object_store.start(free_port(), folder)
    finally:
        object_store.stop(folder)
    assert not processes.alive(pid)
    assert not processes.port_open(port)
    assert object_store.main(["status", "--dir", str(folder)]) == 3


def test_refuses_to_start_without_keys_or_on_a_busy_port(tmp_path, monkeypatch, keys):
    monkeypatch.delenv(object_store.SECRET_KEY_ENV)
    with pytest.raises(object_store.ObjectStoreError, match=object_store.SECRET_KEY_ENV):
        object_store.start(free_port(), tmp_path / "a")
    monkeypatch.setenv(object_store.SECRET_KEY_ENV, SECRET)
    with pytest.raises(object_store.ObjectStoreError, match="not an S3 bucket name"):
        object_store.start(free_port(), tmp_path / "b", bucket="Lake_Data")
    port = free_port()
    pid = object_store.start(port, tmp_path / "c")
    try:
        with pytest.raises(object_store.ObjectStoreError, match=f"port {port} is already in use"):
            object_store.start(port, tmp_path / "d")
    finally:
        object_store.stop(tmp_path / "c")
    assert not processes.alive(pid)
    assert os.environ[object_store.ACCESS_KEY_ENV] == ACCESS


def test_counts_the_requests_it_logged_by_kind(tmp_path, keys):
    port = free_port()
    folder = tmp_path / "s3"
    object_store.start(port, folder, bucket="counted", log_requests=True)
    try:
        client = S3Client(f"http://127.0.0.1:{port}", ACCESS, SECRET)
        _, offset = object_store.request_counts(folder / "logs" / "s3proxy.log")
        for name in ("a", "b"):
            assert client.request("PUT", f"/counted/t/{name}", b"x")[0] == 200
        assert client.request("HEAD", "/counted/t/a")[0] == 200
        assert client.request("GET", "/counted/t/b")[0] == 200
        assert client.request("GET", "/counted")[0] == 200
        assert client.request("DELETE", "/counted/t/a")[0] == 204
        assert client.request("GET", "/counted", query={"list-type": "2", "prefix": "t/"})[0] == 200
        counts, end = object_store.request_counts(folder / "logs" / "s3proxy.log", offset)
        assert counts == {"PUT": 2, "HEAD": 1, "GET": 1, "LIST": 2, "DELETE": 1}
        # Each with the key it named, or a listing's prefix.
        found, _ = object_store.logged_requests(folder / "logs" / "s3proxy.log", offset)
        assert found == [
            ("PUT", "t/a"),
            ("PUT", "t/b"),
            ("HEAD", "t/a"),
            ("GET", "t/b"),
            ("LIST", ""),
            ("DELETE", "t/a"),
            ("LIST", "t/"),
        ]
        assert object_store.request_counts(folder / "logs" / "s3proxy.log", end)[0] == {}
    finally:
        object_store.stop(folder)
