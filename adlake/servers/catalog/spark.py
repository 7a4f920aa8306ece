"""What a Spark application needs to use the catalog: the JDBC driver and the
`spark_conf` of a profile."""

from __future__ import annotations

import json
from pathlib import Path

from adlake.servers.catalog.layout import (
    DATABASE,
    HOST,
    JARS_DIR,
    PASSWORD_ENV,
    ROLE,
    CatalogError,
    layout,
    read_state,
)
from adlake.servers.catalog.passwords import password


def jdbc_driver_jar(jars_dir: Path = JARS_DIR) -> Path:
    """PostgreSQL's JDBC driver (org.postgresql:postgresql 42.x) that setup.sh fetched."""

    def version(path: Path):
        return [
            int(part) if part.isdigit() else 0 for part in path.stem.split("-", 1)[1].split(".")
        ]

    found = sorted(jars_dir.glob("postgresql-42.*.jar"), key=version)
    if not found:
        raise CatalogError(f"PostgreSQL's JDBC driver is not in {jars_dir}: run tools/setup.sh")
    return found[-1].resolve()


def default_warehouse(directory: Path | None = None) -> Path:
    return layout(directory).root / "warehouse"


def spark_conf(
    directory: Path | None = None,
    warehouse_dir: Path | None = None,
    password_value: str | None = None,
) -> dict[str, str]:
    """The `spark_conf` of a `method: session` profile that uses this catalog.

    password_value replaces the password (e.g. a profile's
    "{{ env_var('LAKEHOUSE_CATALOG_PASSWORD') }}"); by default it is the real one."""
    lay = layout(directory)
    state = read_state(lay)
    if "port" not in state:
        raise CatalogError(
            f"no catalog in {lay.root}: run `python -m adlake.servers.catalog start --dir {lay.root}`"
        )
    jdo = "spark.hadoop.javax.jdo.option."
    return {
        jdo + "ConnectionURL": f"jdbc:postgresql://{HOST}:{state['port']}/{DATABASE}",
        jdo + "ConnectionDriverName": "org.postgresql.Driver",
        jdo + "ConnectionUserName": ROLE,
        jdo + "ConnectionPassword": password_value
        if password_value is not None
        else password(lay.root),
        # On the JVM's own class path: the adapter's spark.jars holds the Hudi
        # bundle, and Spark's Hive client shares org.postgresql classes with it.
        "spark.driver.extraClassPath": str(jdbc_driver_jar()),
        # Spark's built-in Hive client, whose schema the catalog holds (2.3.0).
        "spark.sql.hive.metastore.version": "2.3.9",
        "spark.sql.hive.metastore.jars": "builtin",
        # The schema exists, whole: check its version, never create or alter it
        # (lazy creation by DataNucleus deadlocks, see HUDI_NOTES).
        "spark.hadoop.hive.metastore.schema.verification": "true",
        "spark.hadoop.hive.metastore.schema.verification.record.version": "false",
        "spark.hadoop.datanucleus.schema.autoCreateAll": "false",
        # A metastore client in each application (no Thrift metastore server).
        "spark.hadoop.hive.metastore.uris": "",
        # One warehouse for every application of this catalog: a table's
        # recorded location is where every one of them looks.
        "spark.sql.warehouse.dir": str(
            Path(warehouse_dir) if warehouse_dir else default_warehouse(lay.root)
        ),
    }


def profile_yaml(directory: Path | None = None) -> str:
    """The spark_conf block for profiles.yml, the password read from the environment."""
    conf = spark_conf(directory, password_value="{{ env_var('" + PASSWORD_ENV + "') }}")
    lines = ["spark_conf:"] + [f"  {key}: {json.dumps(value)}" for key, value in conf.items()]
    return "\n".join(lines)
