"""DWD accounts: CDC applied in change_seq order, whatever order the changes land in."""

import json


def change(op, seq, industry="retail"):
    return {
        "op": op,
        "account_id": 5001,
        "account_name": "Late Lane",
        "agency_id": None,
        "agency_name": "Direct",
        "industry": industry,
        "change_time": f"2026-11-20 10:00:{seq:02d}",
        "change_seq": 900000 + seq,
    }


def land_changes(house, batch, *changes):
    folder = house.landing / "account_changes" / f"batch={batch:06d}"
    folder.mkdir(parents=True)
    (folder / "part-0000.jsonl").write_text("".join(json.dumps(c) + "\n" for c in changes))


def test_changes_apply_in_change_seq_order_and_a_delete_stays_deleted(warehouse_factory):
    house = warehouse_factory("wa", seed=2, events=200, batches=1, accounts=5)
    house.land(1)
    account = "select industry from {s}_dwd.dwd_accounts where account_id = 5001"
    build = ("run", "--select", "+dwd_accounts")

    # Inserted, then two updates landing out of order: the later change wins.
    land_changes(
        house, 101, change("I", 1, "retail"), change("U", 3, "travel"), change("U", 2, "gaming")
    )
    house.dbt(*build)
    assert [r.industry for r in house.rows(account)] == ["travel"]

    # Deleted; then a change older than the delete lands late: it stays deleted.
    land_changes(house, 102, change("D", 5, "travel"))
    house.dbt(*build)
    assert house.rows(account) == []
    land_changes(house, 103, change("U", 4, "finance"))
    house.dbt(*build)
    assert house.rows(account) == []
    # The five generated accounts are untouched.
    assert house.scalar("select count(*) from {s}_dwd.dwd_accounts") == 5
