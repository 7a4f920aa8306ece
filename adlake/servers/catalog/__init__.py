"""A shared Hive metastore catalog on a local PostgreSQL server.

The embedded session's default catalog is a Derby database in the lake folder,
which one JVM opens at a time. This one is a PostgreSQL cluster that several
Spark applications (dbt runs, a Thrift server, an ingestion job) use at once:

    python -m adlake.servers.catalog start [--dir DIR] [--port N]
    python -m adlake.servers.catalog status [--dir DIR]
    python -m adlake.servers.catalog stop [--dir DIR]
    python -m adlake.servers.catalog profile [--dir DIR]    # the profile's spark_conf, as YAML

(or `adlake-catalog ...`), and, from Python, `start(dir)`, `stop(dir)`, `status(dir)` and
`spark_conf(dir)`: the settings a `method: session` profile puts under
`spark_conf` to use it.

One module a concern: layout (the folder's files and the catalog's names),
accounts (the OS account that runs PostgreSQL), passwords, postgres (the
server's binaries, process and psql), schema (role, database, Hive schema),
spark (what a Spark application needs), commands (start, stop, status) and
cli.

What `start` does, each step skipped when already done (it is idempotent):

- finds PostgreSQL's server binaries (on PATH, or /usr/lib/postgresql/*/bin);
- creates a cluster in DIR/pgdata (default .cache/catalog), listening on
  127.0.0.1 only (a free port, or --port; kept for the next start), its Unix
  socket in DIR/run;
- starts it, waits until it accepts connections on 127.0.0.1, and records the
  postmaster's process id in DIR/postgres.pid (the server log is
  DIR/logs/postgres.log; initdb's and the schema's output are beside it);
- creates the role `lakehouse` and the database `metastore` it owns, and sets
  the role's password: LAKEHOUSE_CATALOG_PASSWORD if set, else one generated
  once and kept in DIR/password (mode 0600). Only a SCRAM verifier computed
  here reaches the server, never the password; nothing prints it;
- creates the whole Hive metastore schema for Spark 3.5's built-in Hive 2.3.9
  client, once, up front (see SCHEMA_SCRIPTS), then checks its version.

PostgreSQL refuses to run as root. Run by root, the cluster belongs to, and
its commands run as, an unprivileged account: the owner of an existing
cluster, else LAKEHOUSE_CATALOG_OS_USER, else `postgres` (the account Debian's
postgresql package creates for its own clusters), else `nobody`. Commands are
started with that uid and gid directly (subprocess's user/group), with no
runuser/su and no shell. DIR is then made traversable (0711) for that account;
the folders above it must be too (/tmp and the repository are; pytest's
tmp_path, under a 0700 folder, is not). Run by anyone else, everything runs as
that user.

`stop` sends the recorded postmaster pid SIGINT (PostgreSQL's fast shutdown:
open sessions are ended, as `pg_ctl stop -m fast` does), waits, and escalates
to SIGQUIT then SIGKILL if it does not end.
"""

from adlake.servers.catalog.commands import start, status, stop
from adlake.servers.catalog.layout import (
    DATABASE,
    DEFAULT_DIR,
    HOST,
    PASSWORD_ENV,
    ROLE,
    CatalogError,
    layout,
)
from adlake.servers.catalog.passwords import password, scram_verifier
from adlake.servers.catalog.postgres import alive, free_port, query
from adlake.servers.catalog.spark import (
    default_warehouse,
    jdbc_driver_jar,
    profile_yaml,
    spark_conf,
)

__all__ = [
    "DATABASE",
    "DEFAULT_DIR",
    "HOST",
    "PASSWORD_ENV",
    "ROLE",
    "CatalogError",
    "alive",
    "default_warehouse",
    "free_port",
    "jdbc_driver_jar",
    "layout",
    "password",
    "profile_yaml",
    "query",
    "scram_verifier",
    "spark_conf",
    "start",
    "status",
    "stop",
]
