{#- The advertiser account dimension, current state: the account CDC applied
    in change_seq order, deletes removed (op = 'D'). Reads only the ODS changes
    committed since its last run, and applies a change only if no newer one
    for the account has landed: change_seq is also the precombine key, but
    once a delete has removed an account's row there is nothing left to
    compare with, and a stale change landing after the delete would bring the
    account back. -#}

{{ config(
    unique_key='account_id',
    precombine_key='change_seq',
    table_type='cow',
    delete_condition="op = 'D'",
) }}

with

new_changes as (

    select * from {{ lake_changes(ref('ods_account_changes')) }} as upstream_changes

),

account_changes as (

    select * from {{ ref('ods_account_changes') }}

),

latest_landed as (

    select
        account_id,
        max(change_seq) as change_seq
    from account_changes
    group by account_id

),

final as (

    select
        new_changes.account_id,
        new_changes.account_name,
        new_changes.agency_id,
        new_changes.agency_name,
        new_changes.industry,
        new_changes.op,
        new_changes.change_seq,
        new_changes.change_time
    from new_changes
    inner join latest_landed
        on
            new_changes.account_id = latest_landed.account_id
            and new_changes.change_seq = latest_landed.change_seq

)

select * from final
