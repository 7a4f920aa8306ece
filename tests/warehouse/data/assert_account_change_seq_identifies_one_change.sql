{#- A change_seq names one change: lines of ods_account_changes that share a
    change_seq are exact duplicates (the feed repeats a few lines). dwd_accounts
    relies on it, since change_seq is its precombine key and Hudi keeps either
    of two lines that tie on it. Fails with one row per change_seq that
    carries different changes. -#}

with

distinct_changes as (

    select distinct
        account_changes.change_seq,
        account_changes.op,
        account_changes.account_id,
        account_changes.account_name,
        account_changes.agency_id,
        account_changes.agency_name,
        account_changes.industry,
        account_changes.change_time
    from {{ ref('ods_account_changes') }} as account_changes

),

final as (

    select
        change_seq,
        count(*) as n_different_changes
    from distinct_changes
    group by change_seq
    having count(*) > 1

)

select * from final
