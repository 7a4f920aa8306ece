{#- The account rules, in one place: which billing events an account may be
    billed for, read from the account changes landed so far (this batch's
    included, since ods_account_changes builds first). docs/warehouse.md,
    "What makes it exact".

    - An account is known once an insert (op 'I') of it has landed. An event of
      an account that is not known yet is held (unknown_account), not lost:
      ods_billing_events_held checks it again on every later run and releases
      it when the insert lands.
    - An event of an account whose latest change (by change_seq) is a delete,
      at or before the event's time, is quarantined (deleted_account). An event
      that happened before the delete is billed, however late it lands.
    - Updates change no event's fate: they relabel the account in DWS and ADS.

    `from {{ account_states() }} as account_states` gives one row per account the
    changes name; `account_reason('account_states', 'events.event_time')` is null for
    a billable event, else the reason. A left join leaves the columns of an
    account never named null, which reads as unknown. -#}

{% macro account_states() -%}
(
    select
        account_changes.account_id,
        max(account_changes.op = 'I') as is_inserted,
        max_by(
            case when account_changes.op = 'D' then account_changes.change_time end,
            account_changes.change_seq
        ) as deleted_at
    from {{ ref('ods_account_changes') }} as account_changes
    group by account_changes.account_id
)
{%- endmacro %}


{% macro account_reason(states, event_time) -%}
    case
        when not coalesce({{ states }}.is_inserted, false) then 'unknown_account'
        when {{ states }}.deleted_at <= {{ event_time }} then 'deleted_account'
    end
{%- endmacro %}
