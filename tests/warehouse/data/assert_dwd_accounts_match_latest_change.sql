{#- dwd_accounts is the account CDC applied in change_seq order, whatever order
    and however often the changes landed: every account whose latest change
    (highest change_seq in ods_account_changes) is an insert or an update is
    present with exactly that change's attributes, and no account whose latest
    change is a delete is present. Lines sharing a change_seq are exact
    duplicates, so any of them will do. Fails with one row per wrong account
    and what is wrong with it. -#}

with

ranked_changes as (

    select
        account_changes.account_id,
        account_changes.op,
        account_changes.account_name,
        account_changes.agency_id,
        account_changes.agency_name,
        account_changes.industry,
        account_changes.change_seq,
        account_changes.change_time,
        row_number() over (
            partition by account_changes.account_id
            order by account_changes.change_seq desc
        ) as change_rank
    from {{ ref('ods_account_changes') }} as account_changes

),

latest_changes as (

    select *
    from ranked_changes
    where change_rank = 1

),

accounts as (

    select * from {{ ref('dwd_accounts') }}

),

compared as (

    select
        latest_changes.op as latest_op,
        latest_changes.change_seq as latest_change_seq,
        accounts.op as dwd_op,
        accounts.change_seq as dwd_change_seq,
        coalesce(latest_changes.account_id, accounts.account_id) as account_id,
        case
            when latest_changes.account_id is null
                then 'in dwd_accounts but never in ods_account_changes'
            when latest_changes.op = 'D' and accounts.account_id is not null
                then 'deleted by its latest change but still present'
            when latest_changes.op != 'D' and accounts.account_id is null
                then 'live by its latest change but missing'
            when
                latest_changes.op != 'D'
                and not (
                    latest_changes.op <=> accounts.op
                    and latest_changes.account_name <=> accounts.account_name
                    and latest_changes.agency_id <=> accounts.agency_id
                    and latest_changes.agency_name <=> accounts.agency_name
                    and latest_changes.industry <=> accounts.industry
                    and latest_changes.change_seq <=> accounts.change_seq
                    and latest_changes.change_time <=> accounts.change_time
                )
                then 'attributes differ from its latest change'
        end as problem
    from latest_changes
    full outer join accounts
        on latest_changes.account_id = accounts.account_id

),

final as (

    select
        account_id,
        problem,
        latest_op,
        latest_change_seq,
        dwd_op,
        dwd_change_seq
    from compared
    where problem is not null

)

select * from final
