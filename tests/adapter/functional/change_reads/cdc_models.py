"""Models of the pending-compaction tests (change_reads/test_pending_compaction.py,
crash/test_killed_writer.py): `up` upserts IDS records a batch (batch b gives
record id the value id * b) on a merge-on-read table with CDC on, compacted
after every second delta commit; `down` adds up's signed changes per group, so
after batch b its totals are total(b) over IDS records exactly."""

IDS = 200

_UP = """
    {{ config(materialized='incremental', table_type='mor', unique_key='id', precombine_key='batch',
              compaction={'trigger': 'num_commits', 'delta_commits': 2, 'mode': '%s'},
              hudi_options={'hoodie.table.cdc.enabled': true,
                            'hoodie.table.cdc.supplemental.logging.mode': 'DATA_BEFORE_AFTER'}) }}
    select id, {{ var('batch') }} as batch, id * {{ var('batch') }} as value, pmod(id, 4) as grp
    from (select explode(sequence(1, %d)) as id)
"""

DOWN = """
    {{ config(materialized='incremental', unique_key='grp', incremental_strategy='upsert') }}
    with deltas as (
        select grp, sum(_sign * value) as total, sum(_sign) as records
        from {{ lake_signed_changes(ref('up'), ['grp', 'value']) }} as changes
        group by grp
    ),
    stored as (
        {% if is_incremental() %} select * from {{ this }} {% else %} select * from deltas where false {% endif %}
    )
    select deltas.grp, coalesce(stored.total, 0) + deltas.total as total,
           coalesce(stored.records, 0) + deltas.records as records
    from deltas left join stored on deltas.grp = stored.grp
"""


def up(mode: str) -> str:
    """The upstream with compaction mode `mode` (inline, schedule)."""
    # %-format: Jinja's braces would need doubling in an f-string or str.format.
    return _UP % (mode, IDS)  # noqa: UP031


def total(batch: int) -> int:
    return batch * IDS * (IDS + 1) // 2
