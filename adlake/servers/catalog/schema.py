"""The role, the database and the Hive metastore schema, each created once."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from adlake import ROOT
from adlake.servers.catalog.accounts import Account
from adlake.servers.catalog.layout import DATABASE, ROLE, CatalogError, Layout
from adlake.servers.catalog.passwords import scram_verifier
from adlake.servers.catalog.postgres import literal, psql

SCHEMA_DIR = ROOT / ".cache" / "hive-schema" / "postgres"

# Hive 2.3's PostgreSQL schema, built the way Hive's schematool builds it from
# an older one: Hive 1.2.0's full schema, then the upgrade scripts to 2.3.0
# (each self-contained, ending with the VERSION row's update). Hive's 2.3.x
# artefacts on Maven Central carry no SQL; the scripts come from
# org.apache.hive:hive-standalone-metastore:3.1.3:tar.gz:bin
# (scripts/metastore/upgrade/postgres/), fetched by `make setup-tests` (tools/setup.sh --tests).
SCHEMA_VERSION = "2.3.0"
SCHEMA_SCRIPTS = (
    "hive-schema-1.2.0.postgres.sql",
    "upgrade-1.2.0-to-2.0.0.postgres.sql",
    "upgrade-2.0.0-to-2.1.0.postgres.sql",
    "upgrade-2.1.0-to-2.2.0.postgres.sql",
    "upgrade-2.2.0-to-2.3.0.postgres.sql",
)
# Tables the Spark client touches on its first DDL and on Hudi writes: checked
# after the schema is created.
SCHEMA_CHECK_TABLES = (
    "DBS",
    "TBLS",
    "SDS",
    "COLUMNS_V2",
    "PARTITIONS",
    "PARTITION_KEYS",
    "TBL_PRIVS",
    "VERSION",
)


def provision(lay: Layout, account: Account, bin_dir: Path, port: int, secret: str) -> str:
    """Role, database and Hive schema, each created if missing; the schema version."""
    sql = partial(psql, lay, account, bin_dir, port)  # on this cluster, as its superuser
    exists = sql(
        "postgres",
        f"SELECT count(*) FROM pg_roles WHERE rolname = {literal(ROLE)};",
    )
    create = "CREATE" if exists == "0" else "ALTER"
    # The password on every start, so a changed LAKEHOUSE_CATALOG_PASSWORD applies.
    sql(
        "postgres",
        f'{create} ROLE "{ROLE}" LOGIN PASSWORD {literal(scram_verifier(secret))};',
    )
    has_db = sql(
        "postgres",
        f"SELECT count(*) FROM pg_database WHERE datname = {literal(DATABASE)};",
    )
    if has_db == "0":
        # Owned by the role, which may then create the tables in its public schema.
        sql(
            "postgres",
            f'CREATE DATABASE "{DATABASE}" OWNER "{ROLE}" ENCODING \'UTF8\';',
            transaction=False,
        )
    version_sql = 'SELECT "SCHEMA_VERSION" FROM "VERSION";'
    has_schema = sql(
        DATABASE,
        "SELECT to_regclass('public.\"VERSION\"') IS NOT NULL;",
    )
    if has_schema != "t":
        missing = [name for name in SCHEMA_SCRIPTS if not (SCHEMA_DIR / name).is_file()]
        if missing:
            raise CatalogError(
                f"The Hive metastore schema scripts are missing from {SCHEMA_DIR} ({', '.join(missing)}): "
                "run `make setup-tests` (tools/setup.sh --tests), which fetches them from Maven Central"
            )
        # One transaction, as the role that will own the tables: a failure leaves
        # no half schema, and a new start tries again.
        script = f'SET ROLE "{ROLE}";\n' + "\n".join(
            (SCHEMA_DIR / name).read_text() for name in SCHEMA_SCRIPTS
        )
        sql(DATABASE, script, log=lay.logs / "schema.log")
    version = sql(DATABASE, version_sql)
    if version != SCHEMA_VERSION:
        raise CatalogError(
            f"The metastore schema in {lay.root} is version {version!r}; Spark 3.5's Hive 2.3.9 client "
            f"needs {SCHEMA_VERSION}"
        )
    names = ", ".join(literal(t) for t in SCHEMA_CHECK_TABLES)
    found = sql(
        DATABASE,
        f"SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = {literal(ROLE)} "
        f"AND tablename IN ({names});",
    )
    if found != str(len(SCHEMA_CHECK_TABLES)):
        raise CatalogError(
            f"The metastore schema in {lay.root} lacks tables: {found} of {names} found"
        )
    return version
