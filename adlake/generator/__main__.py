"""The generator's command line:

    python -m adlake.generator --out DIR [--seed 7] [--events 10000] [--batches 6] ...

(or `adlake-generate ...`); see adlake.generator's docstring for what it writes.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from pathlib import Path

from adlake.generator.dataset import generate


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m adlake.generator",
        description="Generate deterministic, messy billing source data.",
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="output folder (must be empty unless --force)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--events", type=int, default=10_000, help="event lines over all batches")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument(
        "--late-accounts",
        type=int,
        default=2,
        help="accounts whose batch 1 insert lands in batch 2 instead (0: none)",
    )
    parser.add_argument(
        "--start",
        type=datetime.fromisoformat,
        default=datetime(2026, 11, 20),
        help="start of batch 1's window, UTC (default 2026-11-20T00:00:00)",
    )
    parser.add_argument("--batch-minutes", type=int, default=480, help="length of a batch window")
    parser.add_argument("--force", action="store_true", help="replace a previous output in --out")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    began = time.perf_counter()
    try:
        generate(
            args.out,
            seed=args.seed,
            events=args.events,
            batches=args.batches,
            accounts=args.accounts,
            late_accounts=args.late_accounts,
            start=args.start,
            batch_minutes=args.batch_minutes,
            force=args.force,
        )
    except (FileExistsError, ValueError) as error:
        print(f"adlake.generator: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - began
    print(
        f"wrote {args.events} event lines in {args.batches} batches to {args.out} "
        f"in {elapsed:.1f} s ({args.events / elapsed:,.0f} events/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
