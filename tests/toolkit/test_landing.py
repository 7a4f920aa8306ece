"""Landing (adlake.landing): a batch lands whole, under its final names, and
landing it again changes nothing. No Spark."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from adlake.generator import generate
from adlake.landing import land_batch

BATCH_1 = {
    "dimensions/ads.jsonl",
    "dimensions/campaigns.jsonl",
    "dimensions/media.jsonl",
    "account_changes/batch=000001/part-0000.jsonl",
    "billing_events/batch=000001/part-0000.jsonl",
    "billing_events/batch=000001/part-0001.jsonl",
}


@pytest.fixture
def generated(tmp_path) -> Path:
    out = tmp_path / "generated"
    generate(out, seed=3, events=300, batches=2, accounts=10)
    return out


def files_under(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below `folder`, hidden ones included: (bytes, mtime in ns)."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file()
    }


def test_a_batch_lands_whole_under_its_final_names(generated, tmp_path):
    landing = tmp_path / "landing"
    files, lines = land_batch(generated, landing, 1)

    landed = files_under(landing)
    # Batch 1 brings the dimensions; no hidden copy is left behind.
    assert set(landed) == BATCH_1
    assert files == len(BATCH_1)
    for name, (data, _) in landed.items():
        assert data == (generated / name).read_bytes(), name
    assert lines == sum(data.count(b"\n") for data, _ in landed.values()) > 0


def test_landing_a_batch_again_changes_nothing(generated, tmp_path):
    landing = tmp_path / "landing"
    land_batch(generated, landing, 1)
    before = files_under(landing)

    assert land_batch(generated, landing, 1) == (0, 0)
    assert files_under(landing) == before  # not even rewritten

    # Batch 2 adds its own feeds' files only: the dimensions landed with batch 1.
    files, _ = land_batch(generated, landing, 2)
    assert files == 3
    assert set(files_under(landing)) - set(before) == {
        "account_changes/batch=000002/part-0000.jsonl",
        "billing_events/batch=000002/part-0000.jsonl",
        "billing_events/batch=000002/part-0001.jsonl",
    }


def test_an_interrupted_landings_hidden_copy_is_replaced(generated, tmp_path):
    landing = tmp_path / "landing"
    target = landing / "billing_events" / "batch=000001" / "part-0000.jsonl"
    hidden = target.with_name("." + target.name + ".landing")
    hidden.parent.mkdir(parents=True)
    hidden.write_bytes(b'{"event_id":"e0000')  # a copy cut short

    land_batch(generated, landing, 1)
    assert not hidden.exists()
    assert target.read_bytes() == (generated / target.relative_to(landing)).read_bytes()


def test_a_batch_that_was_not_generated_is_refused(generated, tmp_path):
    with pytest.raises(FileNotFoundError, match="batch 3"):
        land_batch(generated, tmp_path / "landing", 3)
    assert not (tmp_path / "landing").exists()


def test_a_batch_lands_in_a_bucket_once_each_file_an_object(generated, tmp_path, monkeypatch):
    """On the project's real S3 server: each file one PUT under the prefix,
    readable back whole; a second landing PUTs nothing; wrong keys fail
    naming the store."""
    from adlake import s3_client
    from adlake.landing import LandingError
    from adlake.runner.continuous import landed_files
    from adlake.servers import object_store
    from adlake.servers.catalog import free_port

    monkeypatch.setenv(s3_client.ACCESS_KEY_ENV, "landing-access")
    monkeypatch.setenv(s3_client.SECRET_KEY_ENV, "landing-secret")
    port = free_port()
    object_store.start(port, tmp_path / "s3", bucket="feeds")
    try:
        monkeypatch.setenv(s3_client.ENDPOINT_ENV, f"http://127.0.0.1:{port}")
        files, lines = land_batch(generated, "s3a://feeds/in/landing", 1)
        assert files == len(BATCH_1) and lines > 0
        client = s3_client.from_environment()
        for name in BATCH_1:
            status, body = client.request("GET", f"/feeds/in/landing/{name}")
            assert (status, body) == (200, (generated / name).read_bytes()), name
        assert land_batch(generated, "s3a://feeds/in/landing", 1) == (0, 0)

        # What continuous mode's watcher sees: every object under the prefix
        # with its size and time; a hidden one (being written) is left out.
        client.request("PUT", "/feeds/in/landing/billing_events/.part-9.jsonl.landing", b"{")
        seen = landed_files("s3a://feeds/in/landing")
        assert {name: size for name, (size, _) in seen.items()} == {
            name: (generated / name).stat().st_size for name in BATCH_1
        }
        assert all(abs(ns / 1e9 - time.time()) < 600 for _, ns in seen.values())
        assert land_batch(generated, "s3a://feeds/in/landing", 2)[0] == 3
        assert len(landed_files("s3a://feeds/in/landing/")) == len(BATCH_1) + 3
        # Listed two keys a request, the pages are followed to the end.
        paged = client.list_objects("feeds", "in/landing/", page=2)
        assert paged == client.list_objects("feeds", "in/landing/")
        assert len(paged) == len(BATCH_1) + 4

        monkeypatch.setenv(s3_client.SECRET_KEY_ENV, "not-the-secret")
        with pytest.raises(LandingError, match=f"127.0.0.1:{port} refused"):
            land_batch(generated, "s3a://feeds/other", 1)
    finally:
        object_store.stop(tmp_path / "s3")
