"""The figures a correct warehouse shows after each batch (truth.json),
computed here in Python as the lines land, by the classification rules of
adlake.generator's docstring ("truth.json")."""

from __future__ import annotations

from datetime import datetime

from adlake.generator.common import EVENT_TYPES
from adlake.generator.mess import LINE_DEFECTS

# truth.json's `malformed` keys: every reason a line is quarantined for, in
# rule order. unknown_account is not one: such a line is held, not quarantined.
QUARANTINE_REASONS = (*LINE_DEFECTS.values(), "deleted_account")

# What rules 9 and 10 make of a line that passed rules 1-8, besides deleted_account.
VALID, HELD = "valid", "held"


class LandedAccounts:
    """The account feed as the warehouse has landed it so far: what rules 9
    and 10, cost_by_industry and accounts_current go by."""

    def __init__(self):
        self.inserted: set[int] = set()
        # account_id -> its landed row with the highest change_seq
        self.latest: dict[int, dict] = {}

    def land(self, rows: list[dict]) -> None:
        """Repeated rows and any row order give the same state: change_seq decides."""
        for row in rows:
            account_id = row["account_id"]
            if row["op"] == "I":
                self.inserted.add(account_id)
            latest = self.latest.get(account_id)
            if latest is None or row["change_seq"] > latest["change_seq"]:
                self.latest[account_id] = row

    def verdict(self, event: dict) -> str:
        """VALID, HELD or "deleted_account" for a line that passed rules 1-8."""
        account_id = event["account_id"]
        if account_id not in self.inserted:
            return HELD
        latest = self.latest[account_id]
        # Parsed, not compared as text: change_time has no fraction of a second.
        if latest["op"] == "D" and (
            datetime.fromisoformat(latest["change_time"])
            <= datetime.fromisoformat(event["event_time"])
        ):
            return "deleted_account"
        return VALID

    def industry_of(self, account_id: int) -> str:
        """The current industry, "unknown" once the account is deleted."""
        latest = self.latest[account_id]
        return "unknown" if latest["op"] == "D" else latest["industry"]

    def current(self) -> int:
        return sum(row["op"] != "D" for row in self.latest.values())


class Truth:
    """The figures a correct warehouse shows, kept up to date line by line.

    Per event id it keeps only (version, cost) of the winning version; totals
    are adjusted as versions win, so closing a batch costs a pass over the
    accounts, not over the events. Held lines are kept whole until released."""

    def __init__(self):
        self.accounts = LandedAccounts()
        self.winners: dict[str, tuple[int, int]] = {}
        self.cost_by_account: dict[int, int] = {}
        self.type_counts = {event_type: 0 for event_type in EVENT_TYPES}
        self.landed_lines = 0
        self.valid_lines = 0
        self.malformed = {reason: 0 for reason in QUARANTINE_REASONS}
        self.held: list[dict] = []
        self.account_change_lines = 0
        self.batches: list[dict] = []

    def land_changes(self, rows: list[dict]) -> None:
        """A batch's account changes land (before its event lines), and every
        held line is judged again against the new state."""
        self.account_change_lines += len(rows)
        self.accounts.land(rows)
        held, self.held = self.held, []
        for event in held:
            self._judge(event)

    def add_line(self, event: dict | None, reason: str | None) -> None:
        """One landed event line, as EventMaker.make_line describes it."""
        self.landed_lines += 1
        if reason is not None:
            self.malformed[reason] += 1
        else:
            self._judge(event)

    def _judge(self, event: dict) -> None:
        verdict = self.accounts.verdict(event)
        if verdict == VALID:
            self._add_valid(event)
        elif verdict == HELD:
            self.held.append(event)
        else:
            self.malformed[verdict] += 1

    def _add_valid(self, event: dict) -> None:
        """Apply one valid line: the highest version per event id wins."""
        self.valid_lines += 1
        event_id, version, cost = event["event_id"], event["event_version"], event["cost_micros"]
        winner = self.winners.get(event_id)
        if winner is None:
            self.type_counts[event["event_type"]] += 1
            old_cost = 0
        elif version > winner[0]:
            old_cost = winner[1]
        else:
            return  # a duplicate or a stale version: changes nothing
        self.winners[event_id] = (version, cost)
        account_id = event["account_id"]
        self.cost_by_account[account_id] = self.cost_by_account.get(account_id, 0) + cost - old_cost

    def close_batch(self, batch: int) -> None:
        self.batches.append(
            {
                "batch": batch,
                "landed_event_lines": self.landed_lines,
                "malformed": dict(self.malformed),
                "valid_event_lines": self.valid_lines,
                "held_event_lines": len(self.held),
                "events": len(self.winners),
                "cost_micros": sum(self.cost_by_account.values()),
                "impressions": self.type_counts["impression"],
                "clicks": self.type_counts["click"],
                "conversions": self.type_counts["conversion"],
                "cost_by_industry": self._cost_by_industry(),
                "account_change_lines": self.account_change_lines,
                "accounts_current": self.accounts.current(),
            }
        )

    def _cost_by_industry(self) -> dict[str, int]:
        """Industry as of now, not as of the event: that is what the report shows."""
        totals: dict[str, int] = {}
        for account_id, cost in self.cost_by_account.items():
            industry = self.accounts.industry_of(account_id)
            totals[industry] = totals.get(industry, 0) + cost
        return dict(sorted(totals.items()))
