"""`python -m adlake.servers.catalog start|stop|status|profile` (or
`adlake-catalog ...`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from adlake.servers.catalog.commands import start, status, stop
from adlake.servers.catalog.layout import DEFAULT_DIR, CatalogError
from adlake.servers.catalog.spark import profile_yaml


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="A shared Hive metastore catalog on PostgreSQL (127.0.0.1)"
    )
    parser.add_argument("action", choices=["start", "stop", "status", "profile"])
    parser.add_argument(
        "--dir", type=Path, default=DEFAULT_DIR, help="catalog folder (default .cache/catalog)"
    )
    parser.add_argument(
        "--port", type=int, help="port on 127.0.0.1 (default: the last one, else a free one)"
    )
    parser.add_argument("--timeout", type=float, default=60, help="seconds to wait for the server")
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            info = start(args.dir, args.port, args.timeout)
            print(
                f"catalog: PostgreSQL on {info['host']}:{info['port']} (pid {info['pid']}, "
                f"run as {info['os_user']}), database {info['database']}, role {info['role']}, "
                f"Hive schema {info['schema_version']}; data {info['pgdata']}, logs {info['logs']}"
            )
        elif args.action == "stop":
            print(
                "catalog: stopped" if stop(args.dir, args.timeout) else "catalog: was not running"
            )
        elif args.action == "status":
            info = status(args.dir)
            for key, value in info.items():
                print(f"{key}: {value}")
            return 0 if info["running"] else 3
        else:
            print(profile_yaml(args.dir))
    except CatalogError as exc:
        print(f"catalog: {exc}", file=sys.stderr)
        return 1
    return 0
