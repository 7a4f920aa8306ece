{#- ads_top_advertisers_today holds exactly the accounts that rank within the
    `top_n` var by today's spend, with the right rank and spend. Recomputed
    from ads_spend_by_customer for "today" (the day of the newest billed
    event): a rank above top_n, a rank that disagrees with the spend order
    (ties share a rank), a wrong spend, a missing or an extra account all
    fail, one row per account. -#}

with

as_of as (

    select to_date(max(dwd.event_time)) as as_of_date
    from {{ ref('dwd_billing_events') }} as dwd

),

ranked_customers as (

    select
        by_customer.account_id,
        by_customer.spend_micros,
        rank() over (order by by_customer.spend_micros desc) as spend_rank
    from {{ ref('ads_spend_by_customer') }} as by_customer
    inner join as_of
        on by_customer.event_date = as_of.as_of_date

),

expected as (

    select *
    from ranked_customers
    where spend_rank <= {{ var('top_n', 10) }}

),

top_advertisers as (

    select * from {{ ref('ads_top_advertisers_today') }}

),

compared as (

    select
        expected.spend_rank as expected_rank,
        top_advertisers.spend_rank as actual_rank,
        expected.spend_micros as expected_spend_micros,
        top_advertisers.spend_micros as actual_spend_micros,
        coalesce(expected.account_id, top_advertisers.account_id) as account_id,
        case
            when top_advertisers.spend_rank > {{ var('top_n', 10) }}
                then 'rank above the top_n var'
            when top_advertisers.account_id is null
                then 'in the top by spend but missing'
            when expected.account_id is null
                then 'not in the top by spend but present'
            when top_advertisers.spend_rank != expected.spend_rank
                then 'rank does not follow the spend order'
            when top_advertisers.spend_micros != expected.spend_micros
                then 'spend differs from ads_spend_by_customer'
        end as problem
    from expected
    full outer join top_advertisers
        on expected.account_id = top_advertisers.account_id

),

final as (

    select
        account_id,
        problem,
        expected_rank,
        actual_rank,
        expected_spend_micros,
        actual_spend_micros
    from compared
    where problem is not null

)

select * from final
