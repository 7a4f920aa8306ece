"""Bad input in the billing feed: each kind ends in the quarantine with its
reason, or held until its account lands, never dropped and never billed
twice; landed = valid + quarantined + held after every run.

The files are written here byte by byte, one kind of damage per line, so each
line's expected fate is known; the account feed is hand-written too.
"""

from __future__ import annotations

import json

BUILD = ("run", "--select", "+ods_billing_events", "+ods_billing_events_quarantine")

KNOWN, LATE, DELETED = 7001, 7002, 7003


def account_change(op: str, account_id: int, seq: int, change_time: str) -> dict:
    return {
        "op": op,
        "account_id": account_id,
        "account_name": f"Account {account_id}",
        "agency_id": None,
        "agency_name": "Direct",
        "industry": "retail",
        "change_time": change_time,
        "change_seq": seq,
    }


def event(event_id: str, account_id: int = KNOWN, **changes) -> dict:
    fields = {
        "event_id": event_id,
        "event_version": 1,
        "event_type": "click",
        "event_time": "2026-11-20 12:00:00.000000",
        "account_id": account_id,
        "campaign_id": 1,
        "ad_id": 1,
        "media_id": 1,
        "billing_type": "CPC",
        "cost_micros": 1000,
    }
    fields.update(changes)
    return {k: v for k, v in fields.items() if v is not ...}


def line(fields: dict) -> bytes:
    return json.dumps(fields).encode() + b"\n"


def land(house, feed: str, batch: int, name: str, content: bytes) -> None:
    folder = house.landing / feed / f"batch={batch:06d}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(content)


# Batch 1's billing lines: event id -> (bytes of its line, expected reason).
BATCH_1: dict[str, tuple] = {
    "e-valid": (line(event("e-valid")), None),
    "e-broken": (line(event("e-broken"))[:40] + b"\n", "broken_json"),
    "e-latin1": (
        line(event("e-latin1", event_type="click")).replace(b'"click"', b'"cl\xefck"'),
        "bad_encoding",
    ),
    "e-missing": (line(event("e-missing", cost_micros=...)), "missing_key"),
    "e-id-number": (line(event(12345)), "wrong_type"),
    "e-time-number": (line(event("e-time-number", event_time=1763640000)), "wrong_type"),
    "e-cost-text": (line(event("e-cost-text", cost_micros="1000")), "wrong_type"),
    "e-null-key": (line(event(None)), "bad_value"),
    "e-null-version": (line(event("e-null-version", event_version=None)), "bad_value"),
    "e-bad-version": (line(event("e-bad-version", event_version=1.5)), "bad_value"),
    "e-bad-time": (line(event("e-bad-time", event_time="yesterday")), "bad_value"),
    "e-negative": (line(event("e-negative", cost_micros=-5)), "negative_cost"),
    "e-huge": (line(event("e-huge", cost_micros=9_000_000_000_000_000)), "cost_out_of_range"),
    "e-1970": (line(event("e-1970", event_time="1970-01-01 00:00:01.000000")), "time_out_of_range"),
    "e-2100": (line(event("e-2100", event_time="2100-01-01 00:00:00.000000")), "time_out_of_range"),
    "e-new-field": (line(event("e-new-field", promo_code="X")), None),
    "e-late-account": (line(event("e-late-account", account_id=LATE)), "unknown_account"),
    "e-deleted": (
        line(event("e-deleted", account_id=DELETED, event_time="2026-11-20 15:00:00.000000")),
        "deleted_account",
    ),
    "e-before-delete": (line(event("e-before-delete", account_id=DELETED)), None),
}


def test_each_kind_of_bad_line_ends_with_its_reason_and_late_accounts_are_released(
    warehouse_factory,
):
    house = warehouse_factory("wb")
    land(
        house,
        "account_changes",
        1,
        "part-0000.jsonl",
        b"".join(
            [
                line(account_change("I", KNOWN, 1, "2026-11-19 00:00:00")),
                line(account_change("I", DELETED, 2, "2026-11-19 00:00:00")),
                line(account_change("D", DELETED, 3, "2026-11-20 14:00:00")),
                # A delete of an account that never existed changes nothing.
                line(account_change("D", 7999, 4, "2026-11-20 14:00:00")),
            ]
        ),
    )
    lines = [content for content, _ in BATCH_1.values()]
    # A byte-order mark starts one file (dropped); its last line is cut short (broken_json).
    land(house, "billing_events", 1, "part-0000.jsonl", b"\xef\xbb\xbf" + b"".join(lines[:10]))
    land(
        house,
        "billing_events",
        1,
        "part-0001.jsonl",
        b"".join(lines[10:]) + b'{"event_id": "e-cut", "ev',
    )
    land(house, "billing_events", 1, "part-0002.jsonl", b"")  # an empty file has no lines
    house.dbt(*BUILD)

    reasons = {
        r.event_id: r.quarantine_reason
        for r in house.rows(
            "select coalesce(event_id, get_json_object(raw_line, '$.event_id'), substr(raw_line, 1, 40)) as event_id, "
            "quarantine_reason from {s}_ods.ods_billing_events_raw"
        )
    }
    expected = {k: reason for k, (_, reason) in BATCH_1.items()}
    # Lines whose event_id cannot be read are found by their text.
    reasons["e-broken"] = reasons.pop(line(event("e-broken"))[:40].decode())
    reasons["e-id-number"] = reasons.pop("12345")
    reasons["e-null-key"] = reasons.pop(line(event(None))[:40].decode())
    reasons["e-cut"] = reasons.pop('{"event_id": "e-cut", "ev')
    expected["e-cut"] = "broken_json"
    assert reasons == expected
    # The BOM went, the line numbers count from 1 in each file.
    assert (
        house.scalar(
            "select line_number from {s}_ods.ods_billing_events_raw where event_id = 'e-valid'"
        )
        == 1
    )

    valid = {r.event_id for r in house.rows("select event_id from {s}_ods.ods_billing_events")}
    assert valid == {"e-valid", "e-new-field", "e-before-delete"}
    held = house.rows("select event_id, hold_status from {s}_ods.ods_billing_events_held")
    assert [tuple(r) for r in held] == [("e-late-account", "held")]
    check_lines_add_up(house, landed=len(BATCH_1) + 1, held=1)

    # Batch 2: the late account's insert lands, and a file of batch 1 arrives
    # again under another name. The held line is billed once; the copy is quarantined.
    land(
        house,
        "account_changes",
        2,
        "part-0000.jsonl",
        line(account_change("I", LATE, 5, "2026-11-20 18:00:00")),
    )
    land(
        house,
        "billing_events",
        2,
        "part-0000.jsonl",
        b"".join(lines[10:]) + b'{"event_id": "e-cut", "ev',
    )
    house.dbt(*BUILD)
    valid = sorted(
        r.event_id for r in house.rows("select event_id from {s}_ods.ods_billing_events")
    )
    assert valid == ["e-before-delete", "e-late-account", "e-new-field", "e-valid"]
    assert house.scalar("select hold_status from {s}_ods.ods_billing_events_held") == "released"
    copies = len(BATCH_1) - 10 + 1
    assert (
        house.scalar(
            "select count(*) from {s}_ods.ods_billing_events_quarantine "
            "where quarantine_reason = 'duplicate_file'"
        )
        == copies
    )
    check_lines_add_up(house, landed=len(BATCH_1) + 1 + copies, held=0)

    # A rerun with nothing new writes no commit anywhere and bills nothing twice.
    tables = (
        "ods_billing_events_raw",
        "ods_billing_events_held",
        "ods_billing_events",
        "ods_billing_events_quarantine",
    )
    before = {t: house.instants("ods", t) for t in tables}
    house.dbt(*BUILD)
    assert {t: house.instants("ods", t) for t in tables} == before


def check_lines_add_up(house, landed: int, held: int) -> None:
    counts = house.rows(
        "select (select count(*) from {s}_ods.ods_billing_events_raw) as landed, "
        "(select count(*) from {s}_ods.ods_billing_events) as valid, "
        "(select count(*) from {s}_ods.ods_billing_events_quarantine) as quarantined, "
        "(select count(*) from {s}_ods.ods_billing_events_held where hold_status = 'held') as held"
    )[0]
    assert counts.landed == landed
    assert counts.held == held
    assert counts.landed == counts.valid + counts.quarantined + counts.held
