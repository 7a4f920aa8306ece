{#- The labels a billed account shows under, in one place: every account the
    account changes name (so every account an event can be billed to: an
    event is held until its account's insert lands), with its current name,
    agency and industry from dwd_accounts, or `unknown` for each once the
    account is deleted. DWD's enriched view, dws_spend_daily and
    ads_today_vs_yesterday join it by account_id. A small table rebuilt from
    the two (with skip_unchanged, only when one of them has a new commit), so
    that what joins it re-labels an account's whole history in the same run:
    no fact or aggregate stores a label. -#}

{{ config(
    materialized='table',
    table_type='cow',
    unique_key='account_id',
) }}

with

account_changes as (

    select * from {{ ref('ods_account_changes') }}

),

accounts as (

    select * from {{ ref('dwd_accounts') }}

),

known_accounts as (

    select distinct account_id
    from account_changes

),

final as (

    select
        known_accounts.account_id,
        coalesce(accounts.account_name, 'unknown') as account_name,
        coalesce(accounts.agency_name, 'unknown') as agency_name,
        coalesce(accounts.industry, 'unknown') as industry
    from known_accounts
    left join accounts
        on known_accounts.account_id = accounts.account_id

)

select * from final
