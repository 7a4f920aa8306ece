"""The whole data set: the output folder, and the run that writes it batch by
batch (`generate`)."""

from __future__ import annotations

import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adlake.generator.accounts import FIRST_ACCOUNT_ID, MAX_ACCOUNTS, AccountBook
from adlake.generator.common import batch_name, write_jsonl
from adlake.generator.dimensions import build_dimensions, write_dimensions
from adlake.generator.events import EventMaker
from adlake.generator.plan import lines_per_batch, plan_batch
from adlake.generator.truth import Truth

OUTPUT_ENTRIES = ("dimensions", "account_changes", "billing_events", "truth.json")


def prepare_out(out: Path, force: bool) -> None:
    """Refuse to mix a new run into existing files, unless forced.

    With force, only this generator's own outputs are removed: a mistyped
    --out (say, a home folder) loses nothing else. Leftovers of an earlier,
    longer run would otherwise survive as extra batches."""
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"--out {out} is a file, not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise FileExistsError(
                f"--out {out} is not empty; use --force to replace a previous output"
            )
        for name in OUTPUT_ENTRIES:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    out.mkdir(parents=True, exist_ok=True)


def check_params(
    events: int, batches: int, accounts: int, late_accounts: int, batch_minutes: int
) -> None:
    if batches < 1 or batch_minutes < 1:
        raise ValueError("--batches and --batch-minutes must be at least 1")
    if events < batches:
        raise ValueError("--events must be at least --batches (every batch needs a line)")
    if not 2 <= accounts <= MAX_ACCOUNTS:
        raise ValueError(f"--accounts must be between 2 and {MAX_ACCOUNTS}")
    # At least one account must land on time: batch 1's change file is never empty.
    if not 0 <= late_accounts < accounts:
        raise ValueError("--late-accounts must be between 0 and --accounts - 1")


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to it."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def write_event_batch(
    path: Path, maker: EventMaker, truth: Truth, plan: bytearray, rng: random.Random
) -> None:
    """Stream one batch's lines into its two files, each line to either at random.

    Binary files: a bad_encoding line is bytes that no text encoding would write."""
    path.mkdir(parents=True, exist_ok=True)
    with (
        open(path / "part-0000.jsonl", "wb", buffering=1 << 20) as first,
        open(path / "part-0001.jsonl", "wb", buffering=1 << 20) as second,
    ):
        files = (first, second)
        for position, kind in enumerate(plan):
            line, event, reason = maker.make_line(kind, position)
            files[rng.getrandbits(1)].write(line + b"\n")
            truth.add_line(event, reason)


def generate(
    out: Path,
    seed: int = 7,
    events: int = 10_000,
    batches: int = 6,
    accounts: int = 200,
    late_accounts: int = 2,
    start: datetime = datetime(2026, 11, 20),
    batch_minutes: int = 480,
    force: bool = False,
) -> dict:
    """Write the whole data set into `out` and return the truth (also in truth.json)."""
    out = Path(out)
    check_params(events, batches, accounts, late_accounts, batch_minutes)
    prepare_out(out, force)
    start = as_utc(start)
    window = timedelta(minutes=batch_minutes)
    rng = random.Random(seed)

    # An insert can only land late if there is a batch 2 for it to land in.
    book = AccountBook(rng, accounts, late=late_accounts if batches >= 2 else 0)
    account_ids = list(range(FIRST_ACCOUNT_ID, FIRST_ACCOUNT_ID + accounts))
    dims = build_dimensions(rng, account_ids)
    write_dimensions(out, dims)
    maker = EventMaker(rng, dims, book)
    truth = Truth()

    for batch, lines in enumerate(lines_per_batch(events, batches), start=1):
        window_start = start + window * (batch - 1)
        changes = book.changes_for_batch(batch, window_start, window)
        write_jsonl(out / "account_changes" / batch_name(batch) / "part-0000.jsonl", changes)
        truth.land_changes(changes)

        maker.start_batch(batch, window_start, window, lines)
        plan = plan_batch(rng, lines, batch)
        write_event_batch(out / "billing_events" / batch_name(batch), maker, truth, plan, rng)
        maker.end_batch()
        truth.close_batch(batch)

    result = {
        "batches": truth.batches,
        "params": {
            "seed": seed,
            "events": events,
            "batches": batches,
            "accounts": accounts,
            "late_accounts": late_accounts,
            "start": start.isoformat(),
            "batch_minutes": batch_minutes,
        },
    }
    (out / "truth.json").write_text(json.dumps(result) + "\n", encoding="utf-8", newline="\n")
    return result
