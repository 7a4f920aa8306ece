"""Warm start against the in-process engine: `dbt debug` and a jaffle-shop-sized
`dbt build`, each as a fresh dbt process, as a user types them.

    python -m adlake.bench.warm_start [--runs 3] [--work DIR] [--json FILE]

The project: jaffle_shop's shape (3 seeds of 100 customers, 99 orders and 113
payments, 3 staging views, 2 mart tables, 20 data tests), in a temporary
folder with a lake of its own. Measured, each the median of --runs
processes (wall time of the whole process, start to exit):

- cold: `LAKEHOUSE_WARM_START=0`, every command starts its own Spark JVM;
- first: the first command with warm start on, which starts the lake's server
  (after `dbt-lakehouse-server stop`);
- warm: the next commands, on that server.

It prints the figures; it asserts no time. It exits non-zero if a command fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]

STAGING = {
    "stg_customers": """
with source as (select * from {{ ref('raw_customers') }})
select id as customer_id, first_name, last_name from source
""",
    "stg_orders": """
with source as (select * from {{ ref('raw_orders') }})
select id as order_id, user_id as customer_id, order_date, status from source
""",
    "stg_payments": """
with source as (select * from {{ ref('raw_payments') }})
select id as payment_id, order_id, payment_method, amount / 100 as amount from source
""",
}
MARTS = {
    "customers": """
with customers as (select * from {{ ref('stg_customers') }}),
orders as (select * from {{ ref('stg_orders') }}),
payments as (select * from {{ ref('stg_payments') }}),
customer_orders as (
    select customer_id, min(order_date) as first_order, max(order_date) as most_recent_order,
        count(order_id) as number_of_orders
    from orders group by customer_id
),
customer_payments as (
    select orders.customer_id, sum(amount) as total_amount
    from payments left join orders on payments.order_id = orders.order_id
    group by orders.customer_id
)
select customers.customer_id, customers.first_name, customers.last_name,
    customer_orders.first_order, customer_orders.most_recent_order,
    customer_orders.number_of_orders, customer_payments.total_amount as customer_lifetime_value
from customers
left join customer_orders on customers.customer_id = customer_orders.customer_id
left join customer_payments on customers.customer_id = customer_payments.customer_id
""",
    "orders": """
{% set methods = ['credit_card', 'coupon', 'bank_transfer', 'gift_card'] %}
with orders as (select * from {{ ref('stg_orders') }}),
payments as (select * from {{ ref('stg_payments') }}),
order_payments as (
    select order_id,
        {% for m in methods %}sum(case when payment_method = '{{ m }}' then amount else 0 end)
            as {{ m }}_amount,{% endfor %}
        sum(amount) as total_amount
    from payments group by order_id
)
select orders.order_id, orders.customer_id, orders.order_date, orders.status,
    {% for m in methods %}order_payments.{{ m }}_amount,{% endfor %}
    order_payments.total_amount as amount
from orders left join order_payments on orders.order_id = order_payments.order_id
""",
}
TESTS = {
    "stg_customers": {"customer_id": ["unique", "not_null"]},
    "stg_orders": {"order_id": ["unique", "not_null"], "status": ["not_null"]},
    "stg_payments": {"payment_id": ["unique", "not_null"], "payment_method": ["not_null"]},
    "customers": {"customer_id": ["unique", "not_null"], "first_name": ["not_null"]},
    "orders": {
        "order_id": ["unique", "not_null"],
        "customer_id": [
            "not_null",
            {"relationships": {"to": "ref('customers')", "field": "customer_id"}},
        ],
        "status": ["not_null"],
        "amount": ["not_null"],
        "order_date": ["not_null"],
    },
}


def write_project(root: Path, lake: Path) -> None:
    """jaffle_shop's shape, with seeds of its sizes (generated, seeded)."""
    rng = random.Random(7)
    (root / "models" / "staging").mkdir(parents=True, exist_ok=True)
    (root / "models" / "marts").mkdir(parents=True, exist_ok=True)
    (root / "seeds").mkdir(exist_ok=True)
    (root / "seeds" / "raw_customers.csv").write_text(
        "id,first_name,last_name\n"
        + "".join(f"{i},name{i},{chr(65 + i % 26)}.\n" for i in range(1, 101))
    )
    orders = [
        (i, rng.randint(1, 100), f"2018-{1 + i % 4:02d}-{1 + i % 28:02d}") for i in range(1, 100)
    ]
    statuses = ["placed", "shipped", "completed", "return_pending", "returned"]
    (root / "seeds" / "raw_orders.csv").write_text(
        "id,user_id,order_date,status\n"
        + "".join(f"{i},{user},{day},{rng.choice(statuses)}\n" for i, user, day in orders)
    )
    methods = ["credit_card", "coupon", "bank_transfer", "gift_card"]
    payments = [(i, 1 + (i - 1) % 99) for i in range(1, 114)]
    (root / "seeds" / "raw_payments.csv").write_text(
        "id,order_id,payment_method,amount\n"
        + "".join(
            f"{i},{order},{rng.choice(methods)},{rng.randint(0, 3000)}\n" for i, order in payments
        )
    )
    for folder, models in (("staging", STAGING), ("marts", MARTS)):
        for name, sql in models.items():
            (root / "models" / folder / f"{name}.sql").write_text(sql.lstrip())
    schema = {
        "version": 2,
        "models": [
            {"name": model, "columns": [{"name": c, "data_tests": t} for c, t in columns.items()]}
            for model, columns in TESTS.items()
        ],
    }
    (root / "models" / "schema.yml").write_text(yaml.safe_dump(schema, sort_keys=False))
    (root / "dbt_project.yml").write_text(
        yaml.safe_dump(
            {
                "name": "jaffle_bench",
                "version": "1.0",
                "config-version": 2,
                "profile": "jaffle_bench",
                "models": {
                    "jaffle_bench": {
                        "staging": {"+materialized": "view"},
                        "marts": {"+materialized": "table"},
                    }
                },
            }
        )
    )
    hudi = hudi_bundle.locate(cache_dir=REPO / maven.DEFAULT_CACHE_DIR)
    output = {"type": "lakehouse", "method": "session", "schema": "jaffle", "threads": 2}
    output |= {"lake_dir": str(lake), "hudi_jar": str(hudi)}
    (root / "profiles.yml").write_text(
        yaml.safe_dump({"jaffle_bench": {"target": "dev", "outputs": {"dev": output}}})
    )


def timed(root: Path, command: list[str], warm: bool) -> float:
    env = {**os.environ, "LAKEHOUSE_WARM_START": "1" if warm else "0"}
    began = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "dbt"), *command, "--project-dir", str(root), "--profiles-dir", str(root)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"dbt {' '.join(command)} failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    return took


def stop_server(lake: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "dbt.adapters.lakehouse.warm.server",
            "stop",
            "--lake-dir",
            str(lake),
        ],
        check=True,
        capture_output=True,
    )


def measure(root: Path, lake: Path, command: list[str], runs: int) -> dict[str, float]:
    stop_server(lake)  # the lake is the in-process engine's alone
    cold = [timed(root, command, warm=False) for _ in range(runs)]
    first = timed(root, command, warm=True)
    warm = [timed(root, command, warm=True) for _ in range(runs)]
    return {"cold": statistics.median(cold), "first": first, "warm": statistics.median(warm)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="processes per figure (median)")
    parser.add_argument("--work", type=Path, help="folder for the project (default: a temp one)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="warm-start-bench-"))
    root, lake = work / "project", work / "lake"
    write_project(root, lake)
    try:
        # The seeds and tables exist before the first measured build, as in daily use.
        timed(root, ["build"], warm=False)
        figures = {
            "dbt debug": measure(root, lake, ["debug"], args.runs),
            "dbt build": measure(root, lake, ["build"], args.runs),
        }
    finally:
        stop_server(lake)
    print(f"\nWarm start, median of {args.runs} processes each (seconds, whole process):")
    print(f"{'command':<12}{'cold':>8}{'first':>8}{'warm':>8}")
    for command, row in figures.items():
        print(f"{command:<12}{row['cold']:>8.1f}{row['first']:>8.1f}{row['warm']:>8.1f}")
    print("cold: LAKEHOUSE_WARM_START=0; first: starts the lake's server; warm: reuses it")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
