"""An aggregate fed by incremental reads stays equal to a full recompute while its
upstream receives corrections, deletes, late events and records that change group."""

import json

import pytest

from tests.dbt_harness import failures

# The detail table: upserted by event id, the highest version wins, `op = 'D'`
# deletes; CDC on, so downstream sees before and after images. Merge-on-read,
# it compacts every 2 delta commits: a compaction must never look like a change
# downstream. Copy-on-write (EVENTS_COW), its writer writes the images itself.
EVENTS = """
    {{ config(materialized='incremental', table_type='mor', unique_key='event_id', precombine_key='version',
              partition_by='event_date', delete_condition="op = 'D'",
              compaction={'trigger': 'num_commits', 'delta_commits': 2},
              hudi_options={'hoodie.table.cdc.enabled': true,
                            'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER'}) }}
    select event_id, version, op, account_id, cost_micros, cast(event_date as date) as event_date
    from (values {{ var('rows') }}) as t(event_id, version, op, account_id, cost_micros, event_date)
"""

EVENTS_COW = EVENTS.replace("table_type='mor'", "table_type='cow'").replace(
    "compaction={'trigger': 'num_commits', 'delta_commits': 2},", ""
)

# The aggregate recomputes only the groups the changes touched.
DAILY_SPEND = """
    {{ config(materialized='incremental', unique_key=['event_date', 'account_id'],
              delete_condition='events = 0') }}
    with

    changed_keys as (
        select * from {{ lake_changed_keys(ref('events'), ['event_date', 'account_id']) }}
    ),

    events as (
        select * from {{ ref('events') }}
    ),

    final as (
        select
            changed_keys.event_date,
            changed_keys.account_id,
            coalesce(sum(events.cost_micros), 0) as spend_micros,
            count(events.event_id) as events
        from changed_keys
        left join events
            on events.event_date = changed_keys.event_date
            and events.account_id = changed_keys.account_id
        group by changed_keys.event_date, changed_keys.account_id
    )

    select * from final
"""

# The same aggregate by deltas: adds what each group gained to its stored row,
# reading only the changes and the touched rows of itself.
DAILY_SPEND_DELTAS = """
    {{ config(materialized='incremental', unique_key=['event_date', 'account_id']) }}
    with

    changes as (
        select * from {{ lake_signed_changes(ref('events'), ['event_date', 'account_id', 'cost_micros']) }}
    ),

    deltas as (
        select event_date, account_id, sum(_sign * cost_micros) as spend_micros, sum(_sign) as events
        from changes
        group by event_date, account_id
    ),

    final as (
    {% if is_incremental() %}
        select
            deltas.event_date,
            deltas.account_id,
            coalesce(stored.spend_micros, 0) + deltas.spend_micros as spend_micros,
            coalesce(stored.events, 0) + deltas.events as events
        from deltas
        left join {{ this }} as stored
            on stored.event_date = deltas.event_date
            and stored.account_id = deltas.account_id
    {% else %}
        select * from deltas
    {% endif %}
    )

    select * from final
"""

BATCHES = [
    # First load.
    [
        ("e1", 1, "I", 1, 100, "2026-11-20"),
        ("e2", 1, "I", 1, 200, "2026-11-20"),
        ("e3", 1, "I", 2, 300, "2026-11-20"),
        ("e4", 1, "I", 2, 400, "2026-11-21"),
    ],
    # A correction (e1 costs 150), a late event three days back, a stale version of e2 (ignored).
    [
        ("e1", 2, "U", 1, 150, "2026-11-20"),
        ("e5", 1, "I", 3, 50, "2026-11-18"),
        ("e2", 0, "U", 1, 999, "2026-11-20"),
    ],
    # e2 deleted; e3 corrected onto another account (its old group must shrink); e4 deleted,
    # leaving its group empty.
    [
        ("e2", 2, "D", 1, 200, "2026-11-20"),
        ("e3", 2, "U", 1, 300, "2026-11-20"),
        ("e4", 2, "D", 2, 400, "2026-11-21"),
    ],
    # Nothing new for the aggregate to read: an event arrives and is deleted in the next batch.
    [("e6", 1, "I", 2, 70, "2026-11-22")],
    [("e6", 2, "D", 2, 70, "2026-11-22")],
]


def rows_sql(rows):
    return ", ".join(f"('{e}', {v}, '{op}', {a}, {c}, '{d}')" for e, v, op, a, c, d in rows)


def full_recompute(project):
    return sorted(
        tuple(r)
        for r in project.rows(
            "select event_date, account_id, sum(cost_micros), count(*) from {schema}.events "
            "group by event_date, account_id"
        )
    )


def aggregate(project, table="daily_spend"):
    return sorted(
        tuple(r)
        for r in project.rows(
            f"select event_date, account_id, spend_micros, events from {{schema}}.{table}"
        )
    )


@pytest.mark.parametrize("table_type", ["mor", "cow"])
def test_aggregate_equals_full_recompute_after_every_batch(project, table_type):
    project.model("events", EVENTS if table_type == "mor" else EVENTS_COW)
    project.model("daily_spend", DAILY_SPEND)
    project.model("daily_spend_deltas", DAILY_SPEND_DELTAS)
    no_rows = json.dumps({"rows": "('x', 0, 'I', 0, 0, '2000-01-01')"})
    for number, batch in enumerate(BATCHES, start=1):
        project.dbt("run", "--select", "events", "--vars", json.dumps({"rows": rows_sql(batch)}))
        project.dbt("run", "--select", "daily_spend", "daily_spend_deltas", "--vars", no_rows)
        expected = full_recompute(project)
        assert aggregate(project) == expected, f"after batch {number}"
        # Deltas leave a row of zeros where a group's changes cancel out.
        deltas = aggregate(project, "daily_spend_deltas")
        assert [row for row in deltas if row[3] != 0] == expected, f"after batch {number}"
        assert all(row[2] == 0 for row in deltas if row[3] == 0)
    if table_type == "mor":
        assert "commit" in [a for _, _, a in project.completed_instants("events")], (
            "the upstream compacted"
        )
    # The end state, by hand: e1 150 and e3 300 on account 1, e5 50 on account 3.
    assert [(str(d), a, s, n) for d, a, s, n in aggregate(project)] == [
        ("2026-11-18", 3, 50, 1),
        ("2026-11-20", 1, 450, 2),
    ]


def test_deltas_with_a_delete_condition_are_refused(project):
    project.model("events", EVENTS)
    project.model(
        "daily_spend_deltas",
        DAILY_SPEND_DELTAS.replace(
            "unique_key=['event_date', 'account_id']",
            "unique_key=['event_date', 'account_id'], delete_condition='events = 0'",
        ),
    )
    message = " ".join(
        failures(project.dbt("compile", "--select", "daily_spend_deltas", expect_ok=False))
    )
    assert (
        "daily_spend_deltas" in message
        and "delete_condition" in message
        and "lake_changed_keys" in message
    )
