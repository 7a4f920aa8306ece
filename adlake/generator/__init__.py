"""Generate deterministic, deliberately messy source data for the billing warehouse.

The warehouse ingests three feeds: static dimensions, billing events landing as
micro-batches of JSON-lines files, and account changes as CDC batches. Real
feeds are messy, so every batch mixes in duplicates, out-of-order and late
events, corrections, stale versions and malformed lines: a pipeline that
ignores any of them gets the figures wrong. Alongside the data the generator
writes `truth.json`, the figures a correct warehouse must show after each
batch, computed here in Python (no SQL), for tests to reconcile against.

    python -m adlake.generator --out DIR [--seed 7] [--events 10000]
        [--batches 6] [--accounts 200] [--late-accounts 2]
        [--start 2026-11-20T00:00:00] [--batch-minutes 480] [--force]

(or `adlake-generate ...`), or, from Python,
`adlake.generator.generate(out, seed=7, events=10_000, ...)`, which returns the
truth dict. The same seed and parameters give byte-identical files: the only
source of randomness is one `random.Random(seed)`, and nothing depends on the
clock or on the order of a set. Lines are written as they are made; what is
kept in memory is bounded, except the truth's (version, cost) per event id
and the lines it holds (see truth.json).

--out must be empty or not exist yet. With --force, a previous output (the
four entries below) is removed first; anything else in the folder is left
alone, so a mistyped --out loses nothing but an earlier generated data set.

Layout
------
All times are UTC; every file is JSON lines (one object per line, `\\n` endings)
in UTF-8, except that a few billing-event lines carry a byte that is not valid
UTF-8 on purpose (bad_encoding below): read event files as bytes, not text.
No file starts with a byte-order mark. Batch numbers are 1-based and
zero-padded to 6 digits::

    DIR/dimensions/media.jsonl        media_id, media_name, media_type (search|feed|video|social)
    DIR/dimensions/campaigns.jsonl    campaign_id, account_id, campaign_name, objective
    DIR/dimensions/ads.jsonl          ad_id, campaign_id, ad_name, billing_type (CPC|CPM|oCPM)
    DIR/account_changes/batch=000001/part-0000.jsonl        CDC rows of the batch
    DIR/billing_events/batch=000001/part-0000.jsonl         the batch's event lines,
    DIR/billing_events/batch=000001/part-0001.jsonl           split at random over 2 files
    DIR/truth.json                    one line: {"batches": [...], "params": {...}}

Dimensions are written once (static reference data): about 12 media, 2-4
campaigns per account, 1-3 ads per campaign. Every batch has one account
changes file and two event files, even if one of them happens to be empty.

Batch b covers the window [start + (b-1)*batch_minutes, start + b*batch_minutes).

Account changes (CDC)
---------------------
Rows: op (I|U|D), account_id, account_name, agency_id (null for direct
advertisers), agency_name ("Direct" for them, about 20% of accounts), industry
(one of 8), change_time ("YYYY-MM-DD HH:MM:SS", inside the batch window) and
change_seq, which increases by one per change across all batches and is the
key to order and deduplicate changes by.

- Batch 1 inserts every account, ids 1001 .. 1000+accounts.
- Late accounts: --late-accounts of them (default 2, 0 for none; picked with
  the rng) have their insert row land in batch 2's file instead of batch 1's,
  unchanged (same change_seq, and a change_time in batch 1's window). Their
  batch 1 events are made as usual, so the warehouse holds them until batch 2
  lands. With --batches 1 no account is late.
- Each later batch updates about 3% of the live accounts (one of: industry,
  agency or name) and every even batch deletes one account (while more than
  one is alive). A delete carries
  the account's last known attributes; a deleted account gets no further
  changes. The same batch may update and then delete an account.
- A file's rows are shuffled (so, as a rule, not in change_seq order) and a
  few of them are repeated exactly.

Billing events
--------------
A valid line has 10 keys: event_id ("e" + 12 hex digits), event_version (1,
then +1 per correction), event_type (impression|click|conversion, about
85/12/3%), event_time ("YYYY-MM-DD HH:MM:SS.ffffff"), account_id, campaign_id,
ad_id, media_id, billing_type and cost_micros. An event picks an ad and takes
its campaign, account and billing type, so the three always agree. Only the
event type an ad bills for costs money: CPM impressions 500-5,000 micros, CPC
clicks 50,000-2,000,000, oCPM conversions 500,000-20,000,000; anything else
costs 0.

Events of batch b are generated only for accounts alive after the batch's
account changes (late accounts count as alive from batch 1): an account
deleted in batch b gets no new events, duplicates, corrections or stale
versions from batch b on (its earlier events stay valid), except the
deleted_account lines below.

`--events` counts event lines of every kind over all batches; each batch gets
events // batches lines, the last one also the remainder. Shares of a batch's
lines (each at least one line, as far as the batch has room):

- fresh events, in file order roughly in time order across the window, except:
  3% late (event_time 1 minute to 72 hours before the window) and 5% out of
  order (event_time inside the previous batch's window, capped at 72 hours;
  for batch 1 that is the window before --start), so a file is not in time
  order;
- 2% exact duplicates: a recent line (of the last 4,096 events) repeated byte
  for byte, in either file of the batch, sometimes of an event from an earlier
  batch;
- 2% corrections: a recent billable event (cost > 0) again with
  event_version + 1 and a different cost_micros, all else unchanged;
- 0.5% stale versions (from batch 2 on): the version a correction replaced,
  arriving in a later batch than the correction; it must not win;
- 1% lines the warehouse must not bill as they land, 0.1% each of ten kinds,
  one per reason of the rules below. Each is a fresh event (own event id, so
  it never shares an id with another line) timed in the window, with one
  defect:
  - broken_json: the line cut in half;
  - bad_encoding: one raw byte 0xff, 0xfe or 0x80 inside a string value;
  - missing_key: no event_id, account_id, cost_micros or event_time;
  - wrong_type: in turn, a text key written as a number (event_id as its
    serial, event_type or billing_type as a code, event_time as epoch
    seconds) and a number key written as a string of its digits (say
    cost_micros "1234");
  - bad_value: in turn, a null value (any key), an event_time that is no
    timestamp, an unknown event_type and an unknown billing_type;
  - negative_cost: cost_micros < 0;
  - cost_out_of_range: cost_micros from 10^12 + 1 to 10^15;
  - time_out_of_range: an event_time in 1970 and, in turn, in 2100;
  - unknown_account: account_id from 999000 up, never an account (held for
    ever);
  - deleted_account: an event for an account deleted in an earlier batch
    (so from the batch after the first delete on), timed after the delete;
    while no account is deleted yet, a line of one of the first eight kinds
    instead (picked with the rng).

If a duplicate, correction or stale version has nothing to copy (say, at the
very start of batch 1), that line is a fresh event instead.

truth.json
----------
`batches` holds one entry per batch with cumulative figures through it: entry
b is the warehouse after landing batches 1..b, each batch's account changes
before its event lines. Every event line is classified as it lands by the
first of these rules that matches:

 1. broken_json: the line is not a JSON object. A line is its bytes decoded
    as UTF-8, each invalid byte read as U+FFFD (a UTF-8 byte-order mark at the
    very start of a file would be stripped, not an error).
 2. bad_encoding: the line has bytes that are not valid UTF-8.
 3. missing_key: one of the 10 keys is absent.
 4. wrong_type: a key has the wrong JSON type: event_id, event_type,
    event_time and billing_type must be strings; event_version, account_id,
    campaign_id, ad_id, media_id and cost_micros numbers. (A null is no type
    error: see 5.)
 5. bad_value: a value is null or cannot be read: an event_time that is not a
    "YYYY-MM-DD HH:MM:SS[.ffffff]" timestamp, an event_type other than
    impression|click|conversion, a billing_type other than CPC|CPM|oCPM, a
    number that is not whole.
 6. negative_cost: cost_micros < 0.
 7. cost_out_of_range: cost_micros > 1,000,000,000,000 (10^12 micros).
 8. time_out_of_range: event_time before 2000-01-01 00:00:00, or more than one
    day after the moment the line is ingested. The truth takes each batch to
    be ingested after its window ends, when no ordinary line is out of range
    (a warehouse whose clock is more than a day before a window, say one run
    on a --start in the future, would disagree); 1970 and 2100 always are.
 9. unknown_account: the account_id has no insert (op I) among the account
    changes landed so far, this batch's included. The line is HELD, not
    quarantined.
10. deleted_account: the account's latest landed change (highest change_seq)
    is a delete (op D) whose change_time <= the line's event_time.

Otherwise the line is valid. Rules 1-8 depend on the line alone, so they are
final; a held line is classified again by rules 9-10 each time a later batch
lands: it is released (valid, in that batch) once its account's insert has
landed, or quarantined as deleted_account if rule 10 applies by then. An
unknown_account line is held for ever; a late account's lines are released
by batch 2. Per event_id the highest event_version among valid lines wins (a
duplicate changes nothing, a stale version never wins).

- landed_event_lines: every event line landed so far,
  = valid_event_lines + sum(malformed) + held_event_lines;
- valid_event_lines: lines found valid, each once: when it lands valid, or in
  the batch that releases it;
- malformed: quarantined lines per reason, every reason above except
  unknown_account, in rule order, zeros included;
- held_event_lines: lines held after the batch;
- events, cost_micros, impressions, clicks, conversions: over deduplicated
  valid events (a held line counts from the batch it is released in);
- cost_by_industry: deduplicated cost by the industry of the event's account
  in the latest landed CDC state, "unknown" for an account deleted by then; it
  lists the groups that have at least one event;
- account_change_lines: CDC rows landed (duplicates included);
- accounts_current: accounts whose latest landed change (by change_seq) is
  not a delete (a late account counts once its insert has landed).

`params` records the parameters the data was generated with.

Modules
-------
- `dimensions`: media, campaigns and ads (static reference data);
- `accounts`: the accounts and their CDC rows (AccountBook);
- `plan`: the kinds of line a batch holds, and how many of each;
- `events`: the event lines: fresh, late, out of order, duplicates,
  corrections and stale versions (EventMaker);
- `mess`: the deliberately bad input: the defects of the lines the warehouse
  must not bill, and the CDC file's repeated rows and shuffle;
- `truth`: the figures a correct warehouse shows (truth.json);
- `common`: the event's keys and types, how lines and times are written;
- `dataset`: the output folder and the run (`generate`);
- `__main__`: the command line.
"""

from __future__ import annotations

from adlake.generator.dataset import generate

__all__ = ["generate"]
