"""Land generated micro-batches in the landing folder, the way a producer should.

The generator writes every batch at once (adlake.generator); a real
feed delivers them one by one. `land_batch` copies one batch's files into the
landing folder, each first under a hidden name (a leading `.`, which Spark
skips) and then renamed, so the warehouse never reads a half-written file. The
dimension files land with batch 1. Landing a batch twice changes nothing.

The landing folder may be a bucket's prefix, `s3a://bucket/prefix`: each file
is then one PUT (an object appears whole or not at all), to the store that
ADLAKE_S3_ENDPOINT names with the keys of ADLAKE_S3_ACCESS_KEY and
ADLAKE_S3_SECRET_KEY (adlake.s3_client); a file already there is left alone.

    python -m adlake.landing --generated DIR --landing DIR|s3a://bucket/prefix --batch N

(or `adlake-land ...`).
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from adlake import s3_client

FEEDS = ("account_changes", "billing_events")
BUCKET_SCHEMES = ("s3a://", "s3://")


class LandingError(Exception):
    pass


def _batch_files(generated: Path, batch: int) -> list[tuple[Path, Path]]:
    """(source, path relative to the landing folder) of the batch's files."""
    files = []
    if batch == 1:
        files += [
            (f, Path("dimensions") / f.name)
            for f in sorted((generated / "dimensions").glob("*.jsonl"))
        ]
    for feed in FEEDS:
        folder = Path(feed) / f"batch={batch:06d}"
        files += [(f, folder / f.name) for f in sorted((generated / folder).glob("*.jsonl"))]
    return files


def land_batch(generated: Path, landing: Path | str, batch: int) -> tuple[int, int]:
    """Land batch `batch`; returns (files landed now, lines in them)."""
    files = _batch_files(Path(generated), batch)
    if not files:
        raise FileNotFoundError(f"no generated files for batch {batch} in {generated}")
    if str(landing).startswith(BUCKET_SCHEMES):
        return _land_in_bucket(files, str(landing))
    landed = lines = 0
    for source, relative in files:
        target = Path(landing) / relative
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        hidden = target.with_name("." + target.name + ".landing")
        shutil.copyfile(source, hidden)
        os.replace(hidden, target)  # atomic: readers see all of the file or none
        landed += 1
        with open(target, "rb") as handle:
            lines += sum(1 for _ in handle)
    return landed, lines


def _lines(data: bytes) -> int:
    """Lines as a reader of the file counts them (a last one may lack its LF)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _land_in_bucket(files: list[tuple[Path, Path]], uri: str) -> tuple[int, int]:
    bucket, _, prefix = uri.split("://", 1)[1].partition("/")
    client = s3_client.from_environment()
    landed = lines = 0
    for source, relative in files:
        path = "/" + "/".join(part for part in (bucket, prefix.strip("/"), str(relative)) if part)
        status, _ = client.request("HEAD", path)
        if status == 200:
            continue
        data = source.read_bytes()
        status, answer = client.request("PUT", path, data)
        if status != 200:
            raise LandingError(
                f"the store at {client.endpoint} refused {path} ({status}): "
                f"{answer[:300].decode(errors='replace')}"
            )
        landed += 1
        lines += _lines(data)
    return landed, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=Path, required=True)
    parser.add_argument("--landing", required=True, help="a folder, or s3a://bucket/prefix")
    parser.add_argument("--batch", type=int, required=True)
    args = parser.parse_args()
    files, lines = land_batch(args.generated, args.landing, args.batch)
    print(f"batch {args.batch}: landed {files} files, {lines} lines")


if __name__ == "__main__":
    main()
