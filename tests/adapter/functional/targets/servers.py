"""Test helpers for the server methods: a profile for a server, and reading a
table back through the same server (its files live in the server's lake)."""

from __future__ import annotations

import yaml


def server_profile(method: str, port: int, schema: str, threads: int = 1, **fields) -> str:
    output = {"type": "lakehouse", "method": method, "host": "127.0.0.1", "port": port}
    output |= {"schema": schema, "threads": threads, "connect_retries": 0}
    if method == "thrift":
        output["user"] = "dbt"
    output.update(fields)
    return yaml.safe_dump({"lake_test": {"target": method, "outputs": {method: output}}})


def query(method: str, port: int, sql: str, host: str = "127.0.0.1") -> list[tuple]:
    """Rows of `sql`, run on the server (a new session each time)."""
    if method == "thrift":
        from pyhive import hive

        with hive.connect(host=host, port=port, username="dbt") as conn:
            cursor = conn.cursor()
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()]
    from pyspark.sql.connect.session import SparkSession

    session = SparkSession(connection=f"sc://{host}:{port}")
    session.client._retry_policy.update(max_retries=0)
    session.client.disable_reattachable_execute()
    try:
        return [tuple(row) for row in session.sql(sql).collect()]
    finally:
        session.client._channel.close()  # not close(): see session/connect.py


def facts_model(ids: int) -> str:
    """A merge-on-read model of `ids` rows whose values follow var('run'): a
    run's write is easy to tell from another's by sum(value)."""
    return f"""
    {{{{ config(materialized='incremental', table_type='mor', unique_key='id',
              precombine_key='run') }}}}
    select id, {{{{ var('run') }}}} as run, id * {{{{ var('run') }}}} as value
    from (select explode(sequence(1, {ids})) as id)
"""
