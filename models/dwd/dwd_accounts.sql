{#- The advertiser account dimension, current state: the account CDC applied
    in change_seq order (the precombine key, so a change that lands late or
    twice never undoes a newer one), deletes removed (op = 'D'). Reads only the
    ODS changes committed since its last run. -#}

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

final as (

    select
        account_id,
        account_name,
        agency_id,
        agency_name,
        industry,
        op,
        change_seq,
        change_time
    from new_changes

)

select * from final
