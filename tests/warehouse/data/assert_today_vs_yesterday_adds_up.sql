{#- ads_today_vs_yesterday is internally consistent: there is exactly one
    `all` row, and its spend today and yesterday are the sums of the industry
    rows (`unknown` included), so the dashboard's total never disagrees with
    its breakdown; on every row change_micros is today minus yesterday, and
    change_pct is null exactly when yesterday's spend is 0. Fails with one row
    per broken check. -#}

with

by_industry as (

    select * from {{ ref('ads_today_vs_yesterday') }}

),

industry_sums as (

    select
        coalesce(sum(by_industry.spend_today_micros), 0) as today_micros,
        coalesce(sum(by_industry.spend_yesterday_micros), 0) as yesterday_micros
    from by_industry
    where by_industry.industry != 'all'

),

total_rows as (

    select
        count(*) as n_rows,
        max(by_industry.spend_today_micros) as today_micros,
        max(by_industry.spend_yesterday_micros) as yesterday_micros
    from by_industry
    where by_industry.industry = 'all'

),

total_checks as (

    select
        'all' as industry,
        case
            when total_rows.n_rows != 1
                then concat('expected one `all` row, found ', total_rows.n_rows)
            when
                total_rows.today_micros != industry_sums.today_micros
                or total_rows.yesterday_micros != industry_sums.yesterday_micros
                then 'the `all` row is not the sum of the industry rows'
        end as problem
    from total_rows
    cross join industry_sums

),

row_checks as (

    select
        by_industry.industry,
        case
            when
                by_industry.change_micros
                != by_industry.spend_today_micros
                - by_industry.spend_yesterday_micros
                then 'change_micros is not today minus yesterday'
            when
                (by_industry.change_pct is null)
                != (by_industry.spend_yesterday_micros = 0)
                then 'change_pct is not null exactly when yesterday is 0'
        end as problem
    from by_industry

),

final as (

    select
        total_checks.industry,
        total_checks.problem
    from total_checks
    where total_checks.problem is not null

    union all

    select
        row_checks.industry,
        row_checks.problem
    from row_checks
    where row_checks.problem is not null

)

select * from final
