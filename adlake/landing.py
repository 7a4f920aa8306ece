"""Land generated micro-batches in the landing folder, the way a producer should.

The generator writes every batch at once (adlake.generator); a real
feed delivers them one by one. `land_batch` copies one batch's files into the
landing folder, each first under a hidden name (a leading `.`, which Spark
skips) and then renamed, so the warehouse never reads a half-written file. The
dimension files land with batch 1. Landing a batch twice changes nothing.

    python -m adlake.landing --generated DIR --landing DIR --batch N

(or `adlake-land ...`).
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

FEEDS = ("account_changes", "billing_events")


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


def land_batch(generated: Path, landing: Path, batch: int) -> tuple[int, int]:
    """Land batch `batch`; returns (files landed now, lines in them)."""
    files = _batch_files(Path(generated), batch)
    if not files:
        raise FileNotFoundError(f"no generated files for batch {batch} in {generated}")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=Path, required=True)
    parser.add_argument("--landing", type=Path, required=True)
    parser.add_argument("--batch", type=int, required=True)
    args = parser.parse_args()
    files, lines = land_batch(args.generated, args.landing, args.batch)
    print(f"batch {args.batch}: landed {files} files, {lines} lines")


if __name__ == "__main__":
    main()
