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

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from adlake import ROOT

DEFAULT_DIR = ROOT / ".cache" / "catalog"
JARS_DIR = ROOT / ".cache" / "jars"
SCHEMA_DIR = ROOT / ".cache" / "hive-schema" / "postgres"

PASSWORD_ENV = "LAKEHOUSE_CATALOG_PASSWORD"
OS_USER_ENV = "LAKEHOUSE_CATALOG_OS_USER"
ROLE = "lakehouse"
DATABASE = "metastore"
HOST = "127.0.0.1"

INSTALL_HINT = "apt-get update && apt-get install -y postgresql"
SERVER_BINARIES = ("initdb", "pg_ctl", "postgres", "psql", "pg_isready")

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

# Server settings, rewritten on every start (the port may change).
SERVER_CONF = "lakehouse.conf"


class CatalogError(Exception):
    """A failure with a message meant for the user."""


# --- layout and state ----------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """The files and folders of a catalog folder. One property a path: the
    properties are alike in shape, each names a different entry."""

    root: Path

    @property
    def pgdata(self) -> Path:
        return self.root / "pgdata"

    @property
    def run(self) -> Path:  # the Unix socket's folder
        return self.root / "run"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def server_log(self) -> Path:
        return self.logs / "postgres.log"

    @property
    def pid_file(self) -> Path:
        return self.root / "postgres.pid"

    @property
    def state_file(self) -> Path:
        return self.root / "catalog.json"

    @property
    def password_file(self) -> Path:
        return self.root / "password"


def layout(directory: Path | None = None) -> Layout:
    return Layout(Path(directory or DEFAULT_DIR).resolve())


def _read_state(lay: Layout) -> dict:
    try:
        return json.loads(lay.state_file.read_text())
    except FileNotFoundError:
        return {}


def _write_state(lay: Layout, state: dict) -> None:
    tmp = lay.state_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    tmp.replace(lay.state_file)


# --- binaries and the account that runs them -----------------------------------


def _version_key(path: Path):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path.parent.name)]


def find_bin_dir(pgdata: Path | None = None) -> Path:
    """The folder holding initdb, pg_ctl, postgres, psql and pg_isready.

    A cluster is tied to its major version: for an existing one, that
    version's binaries are preferred."""
    candidates: list[Path] = []
    major = None
    if pgdata is not None and (pgdata / "PG_VERSION").is_file():
        major = (pgdata / "PG_VERSION").read_text().strip()
        candidates.append(Path(f"/usr/lib/postgresql/{major}/bin"))
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)).parent)
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version_key, reverse=True)
    for folder in candidates:
        if all(os.access(folder / name, os.X_OK) for name in SERVER_BINARIES):
            return folder
    found = ", ".join(str(c) for c in candidates) or "none"
    wanted = f" (the cluster in {pgdata} is PostgreSQL {major})" if major else ""
    raise CatalogError(
        f"PostgreSQL's server binaries ({', '.join(SERVER_BINARIES)}) were not found{wanted}: "
        f"looked on PATH and in /usr/lib/postgresql/*/bin (candidates: {found}). "
        f"Install them with: {INSTALL_HINT}"
    )


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int

    @property
    def is_me(self) -> bool:
        return self.uid == os.geteuid()


def service_account(lay: Layout) -> Account:
    """Who owns the cluster and runs its commands (see the module's doc)."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    if (lay.pgdata / "PG_VERSION").exists():
        owner = lay.pgdata.stat().st_uid
        if owner != 0:
            entry = pwd.getpwuid(owner)
            return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    names = [os.environ.get(OS_USER_ENV, ""), "postgres", "nobody"]
    for name in filter(None, names):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            if name == os.environ.get(OS_USER_ENV):
                raise CatalogError(f"{OS_USER_ENV}={name}: no such account") from None
            continue
        if entry.pw_uid == 0:
            raise CatalogError(f"PostgreSQL cannot run as {name} (uid 0); set {OS_USER_ENV}")
        return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    raise CatalogError(f"no unprivileged account to run PostgreSQL as: set {OS_USER_ENV}")


def _run(account: Account, cmd: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    """Run cmd as the service account, with a minimal environment."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LC_ALL": "C",
        "HOME": str(cwd),
        "USER": account.name,
        "LOGNAME": account.name,
        "PGAPPNAME": "lakehouse-catalog",
    }
    if not account.is_me:
        kwargs.update(user=account.uid, group=account.gid, extra_groups=[])
    return subprocess.run(cmd, cwd=cwd, env=env, **kwargs)


def _chown(account: Account, *paths: Path) -> None:
    if not account.is_me:
        for path in paths:
            os.chown(path, account.uid, account.gid)


def _prepare_folders(lay: Layout, account: Account) -> None:
    lay.root.mkdir(parents=True, exist_ok=True)
    if not any(lay.root.iterdir()):  # new (or empty): ours to set up
        # The service account must reach its folders; nobody needs to list this
        # one, which holds the password file (itself 0600).
        os.chmod(lay.root, 0o700 if account.is_me else 0o711)
    for folder in (lay.run, lay.logs):
        folder.mkdir(exist_ok=True)
        _chown(account, folder)
        os.chmod(folder, 0o700)
    if not account.is_me:
        probe = _run(account, ["test", "-w", str(lay.run)], cwd=Path("/"), capture_output=True)
        if probe.returncode != 0:
            raise CatalogError(
                f"The account {account.name}, which runs PostgreSQL here, cannot reach {lay.root}: "
                "it, or a folder above it, is not traversable by other users (mode 0700?). "
                "Choose a --dir under a folder others can traverse (the repository, /tmp)."
            )


# --- the password ----------------------------------------------------------------


def password(directory: Path | None = None) -> str:
    """The role's password: LAKEHOUSE_CATALOG_PASSWORD, else the generated one."""
    from_env = os.environ.get(PASSWORD_ENV)
    if from_env:
        return from_env
    path = layout(directory).password_file
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        raise CatalogError(
            f"No catalog password: set {PASSWORD_ENV}, or run `python -m adlake.servers.catalog start` "
            f"once, which generates one in {path}"
        ) from None


def _ensure_password(lay: Layout) -> str:
    if os.environ.get(PASSWORD_ENV):
        return os.environ[PASSWORD_ENV]
    if not lay.password_file.exists():
        fd = os.open(lay.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(24) + "\n")
    os.chmod(lay.password_file, 0o600)
    return password(lay.root)


def scram_verifier(secret: str, iterations: int = 4096) -> str:
    """PostgreSQL's stored form of a SCRAM-SHA-256 password (RFC 5802/7677), so
    that ALTER ROLE carries a verifier, not the password itself. NFKC stands in
    for SASLprep, which leaves printable ASCII as it is."""
    salt = secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac(
        "sha256", unicodedata.normalize("NFKC", secret).encode(), salt, iterations
    )
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
    return f"SCRAM-SHA-256${iterations}:{_b64(salt)}${_b64(stored_key)}:{_b64(server_key)}"


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


# --- the server process ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True


def _alive(pid: int, pgdata: Path) -> bool:
    """pid is a running (not zombie) postmaster of this cluster."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    if state in ("Z", "X"):
        return False
    return any(arg.endswith(b"postgres") for arg in cmdline[:1]) and str(pgdata).encode() in cmdline


def _recorded_pid(lay: Layout) -> int | None:
    """The postmaster's pid: ours (postgres.pid), else PostgreSQL's own record."""
    for path in (lay.pid_file, lay.pgdata / "postmaster.pid"):
        try:
            pid = int(path.read_text().split()[0])
        except (FileNotFoundError, PermissionError, ValueError, IndexError):
            continue
        if _alive(pid, lay.pgdata):
            return pid
    return None


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return f"({path} does not exist)"


def _initdb(lay: Layout, account: Account, bin_dir: Path) -> None:
    # Into a scratch folder, then renamed: a killed initdb leaves no half cluster.
    scratch = lay.root / "pgdata.initdb"
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(mode=0o700)
    _chown(account, scratch)
    log = lay.logs / "initdb.log"
    with open(log, "w") as out:
        done = _run(
            account,
            [
                str(bin_dir / "initdb"),
                "-D",
                str(scratch),
                "--no-locale",
                "--encoding=UTF8",
                "--auth-local=peer",
                "--auth-host=scram-sha-256",
                "--no-instructions",
            ],
            cwd=lay.root,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        raise CatalogError(f"initdb failed (exit {done.returncode}); {log}:\n{_tail(log)}")
    with open(scratch / "postgresql.conf", "a") as conf:
        conf.write(
            f"\n# adlake.servers.catalog's settings, rewritten on every start.\ninclude_if_exists = '{SERVER_CONF}'\n"
        )
    scratch.rename(lay.pgdata)


def _write_server_conf(lay: Layout, account: Account, port: int) -> None:
    path = lay.pgdata / SERVER_CONF
    path.write_text(
        "\n".join(
            [
                f"listen_addresses = '{HOST}'",
                f"port = {port}",
                f"unix_socket_directories = '{lay.run}'",
                "unix_socket_permissions = 0700",
                # Each Spark application's metastore client keeps pools of connections.
                "max_connections = 200",
                "shared_buffers = 32MB",
                "password_encryption = 'scram-sha-256'",
                "log_line_prefix = '%m [%p] %q%u@%d '",
                "",
            ]
        )
    )
    _chown(account, path)
    os.chmod(path, 0o600)


def _wait_ready(lay: Layout, account: Account, bin_dir: Path, port: int, timeout: float) -> int:
    """Wait until the server accepts connections on 127.0.0.1:port; its pid."""
    deadline = time.monotonic() + timeout
    while True:
        pid = _recorded_pid(lay)
        if pid is not None:
            ping = _run(
                account,
                [str(bin_dir / "pg_isready"), "-q", "-h", HOST, "-p", str(port), "-t", "2"],
                cwd=lay.root,
            )
            if ping.returncode == 0:
                return pid
        if time.monotonic() > deadline:
            raise CatalogError(
                f"PostgreSQL did not accept connections on {HOST}:{port} within {timeout:.0f} s; "
                f"{lay.server_log}:\n{_tail(lay.server_log)}"
            )
        time.sleep(0.3)


def _start_server(lay: Layout, account: Account, bin_dir: Path, port: int, timeout: float) -> int:
    _write_server_conf(lay, account, port)
    if not lay.server_log.exists():
        lay.server_log.touch(mode=0o600)
        _chown(account, lay.server_log)
    done = _run(
        account,
        [
            str(bin_dir / "pg_ctl"),
            "start",
            "-D",
            str(lay.pgdata),
            "-l",
            str(lay.server_log),
            "-w",
            "-t",
            str(int(timeout)),
            "-s",
        ],
        cwd=lay.root,
        capture_output=True,
        text=True,
        start_new_session=True,
    )
    if done.returncode != 0:
        raise CatalogError(
            f"pg_ctl start failed (exit {done.returncode}): {done.stderr.strip()}\n"
            f"{lay.server_log}:\n{_tail(lay.server_log)}"
        )
    return _wait_ready(lay, account, bin_dir, port, timeout)


# --- SQL as the cluster's superuser ----------------------------------------------


def _psql(
    lay: Layout,
    account: Account,
    bin_dir: Path,
    port: int,
    database: str,
    sql: str,
    log: Path | None = None,
    transaction: bool = True,
) -> str:
    """Run sql through psql over the Unix socket (peer authentication as the
    cluster's superuser), in one transaction; its output, or CatalogError."""
    cmd = [
        str(bin_dir / "psql"),
        "-X",
        "-q",
        "-A",
        "-t",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        str(lay.run),
        "-p",
        str(port),
        "-d",
        database,
        "-f",
        "-",
    ]
    if transaction:
        cmd.insert(1, "--single-transaction")
    done = _run(account, cmd, cwd=lay.root, input=sql, capture_output=True, text=True)
    if log is not None:
        log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        where = f" (see {log})" if log else ""
        raise CatalogError(f"psql on {database} failed{where}: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def query(directory: Path | None, sql: str, database: str = DATABASE) -> str:
    """Run sql on the running catalog as its superuser (for checks and status)."""
    lay = layout(directory)
    state = _read_state(lay)
    if _recorded_pid(lay) is None or "port" not in state:
        raise CatalogError(f"the catalog in {lay.root} is not running")
    return _psql(lay, service_account(lay), find_bin_dir(lay.pgdata), state["port"], database, sql)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _provision(lay: Layout, account: Account, bin_dir: Path, port: int, secret: str) -> str:
    """Role, database and Hive schema, each created if missing; the schema version."""
    exists = _psql(
        lay,
        account,
        bin_dir,
        port,
        "postgres",
        f"SELECT count(*) FROM pg_roles WHERE rolname = {_literal(ROLE)};",
    )
    create = "CREATE" if exists == "0" else "ALTER"
    # The password on every start, so a changed LAKEHOUSE_CATALOG_PASSWORD applies.
    _psql(
        lay,
        account,
        bin_dir,
        port,
        "postgres",
        f'{create} ROLE "{ROLE}" LOGIN PASSWORD {_literal(scram_verifier(secret))};',
    )
    has_db = _psql(
        lay,
        account,
        bin_dir,
        port,
        "postgres",
        f"SELECT count(*) FROM pg_database WHERE datname = {_literal(DATABASE)};",
    )
    if has_db == "0":
        # Owned by the role, which may then create the tables in its public schema.
        _psql(
            lay,
            account,
            bin_dir,
            port,
            "postgres",
            f'CREATE DATABASE "{DATABASE}" OWNER "{ROLE}" ENCODING \'UTF8\';',
            transaction=False,
        )
    version_sql = 'SELECT "SCHEMA_VERSION" FROM "VERSION";'
    has_schema = _psql(
        lay,
        account,
        bin_dir,
        port,
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
        _psql(lay, account, bin_dir, port, DATABASE, script, log=lay.logs / "schema.log")
    version = _psql(lay, account, bin_dir, port, DATABASE, version_sql)
    if version != SCHEMA_VERSION:
        raise CatalogError(
            f"The metastore schema in {lay.root} is version {version!r}; Spark 3.5's Hive 2.3.9 client "
            f"needs {SCHEMA_VERSION}"
        )
    names = ", ".join(_literal(t) for t in SCHEMA_CHECK_TABLES)
    found = _psql(
        lay,
        account,
        bin_dir,
        port,
        DATABASE,
        f"SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = {_literal(ROLE)} "
        f"AND tablename IN ({names});",
    )
    if found != str(len(SCHEMA_CHECK_TABLES)):
        raise CatalogError(
            f"The metastore schema in {lay.root} lacks tables: {found} of {names} found"
        )
    return version


# --- the commands -----------------------------------------------------------------


def start(directory: Path | None = None, port: int | None = None, timeout: float = 60) -> dict:
    """Create (once), start (unless running) and provision the catalog; its status."""
    lay = layout(directory)
    account = service_account(lay)
    _prepare_folders(lay, account)
    bin_dir = find_bin_dir(lay.pgdata)
    secret = _ensure_password(lay)
    if not (lay.pgdata / "PG_VERSION").exists():
        _initdb(lay, account, bin_dir)
    state = _read_state(lay)
    pid = _recorded_pid(lay)
    if pid is not None:
        if port is not None and port != state.get("port"):
            raise CatalogError(
                f"the catalog is running on port {state.get('port')}: stop it to change its port"
            )
        if not state.get("port"):
            raise CatalogError(
                f"a server of {lay.pgdata} (pid {pid}) runs, not started by this tool: stop it"
            )
        port = state["port"]
    else:
        if port is None:
            port = (
                state.get("port")
                if state.get("port") and _port_free(state["port"])
                else free_port()
            )
        elif not _port_free(port):
            raise CatalogError(f"port {port} is already in use on {HOST}")
        pid = _start_server(lay, account, bin_dir, port, timeout)
    lay.pid_file.write_text(f"{pid}\n")
    _write_state(
        lay,
        {
            "port": port,
            "host": HOST,
            "database": DATABASE,
            "role": ROLE,
            "os_user": account.name,
            "bin_dir": str(bin_dir),
        },
    )
    _provision(lay, account, bin_dir, port, secret)
    return status(lay.root)


def stop(directory: Path | None = None, timeout: float = 30) -> bool:
    """Stop the server by its recorded pid; False when it was not running."""
    lay = layout(directory)
    pid = _recorded_pid(lay)
    stopped = False
    if pid is not None:
        # SIGINT is PostgreSQL's fast shutdown (SIGTERM's smart shutdown would wait
        # for every Spark application to close its connections).
        for sig, wait in ((signal.SIGINT, timeout), (signal.SIGQUIT, 10), (signal.SIGKILL, 10)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while _alive(pid, lay.pgdata) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not _alive(pid, lay.pgdata):
                break
        if _alive(pid, lay.pgdata):
            raise CatalogError(f"PostgreSQL (pid {pid}) did not stop")
        stopped = True
    lay.pid_file.unlink(missing_ok=True)
    return stopped


def status(directory: Path | None = None) -> dict:
    lay = layout(directory)
    state = _read_state(lay)
    pid = _recorded_pid(lay)
    info = {
        "running": pid is not None,
        "pid": pid,
        "host": HOST,
        "port": state.get("port"),
        "database": DATABASE,
        "role": ROLE,
        "os_user": state.get("os_user"),
        "dir": str(lay.root),
        "pgdata": str(lay.pgdata),
        "logs": str(lay.logs),
        "warehouse": str(default_warehouse(lay.root)),
    }
    if pid is not None:
        try:
            info["schema_version"] = query(lay.root, 'SELECT "SCHEMA_VERSION" FROM "VERSION";')
        except CatalogError:
            info["schema_version"] = None
    return info


# --- what a Spark application needs ------------------------------------------------


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
    state = _read_state(lay)
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


if __name__ == "__main__":
    sys.exit(main())
