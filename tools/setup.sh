#!/usr/bin/env bash
# Idempotent set-up, in two steps; a second run only checks, in seconds.
#
#   tools/setup.sh          (make setup, for `make run`): a virtualenv with the
#       pinned stack, the adapter and the warehouse toolkit (adlake/, both
#       editable), and the Hudi Spark bundle in .cache/jars. It needs only
#       Python 3.11 and Java 17 on the machine: no root, no system package.
#   tools/setup.sh --tests  (make setup-tests, for `make test`): the above,
#       then what only some tests need: PostgreSQL's server, Chromium,
#       chromedriver and the JDK's jdb (checked all at once; installed with one apt-get only when
#       run as root, otherwise named in one message), and PostgreSQL's JDBC
#       driver, Hive's metastore schema scripts and Spark Connect's server jar
#       in .cache/ (downloaded by the adapter's own verified fetch; no Maven).
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1-}" in
  "") tests="" ;;
  --tests) tests=1 ;;
  *) echo "usage: tools/setup.sh [--tests]" >&2; exit 2 ;;
esac

VENV=.venv
JARS=.cache/jars
STAMP=$VENV/.installed

die() { echo "setup: $*" >&2; exit 1; }

# --- make run: Python 3.11, Java 17, then .venv and the Hudi bundle -------------

need_python() {  # why
  die "Python 3.11 is required ($1). Install it:
  Debian/Ubuntu: sudo apt-get install -y python3.11 python3.11-venv
  macOS:         brew install python@3.11"
}
need_java() {  # why
  die "Java 17 is required ($1). Install it:
  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jdk-headless
  macOS:         brew install openjdk@17  (then put \$(brew --prefix openjdk@17)/bin on PATH)"
}
PYTHON=$(command -v python3.11 || command -v python3 || true)
[ -n "$PYTHON" ] || need_python "no python3.11 or python3 on PATH"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
  || need_python "found $("$PYTHON" --version 2>&1) at $PYTHON"
command -v java >/dev/null 2>&1 || need_java "no java on PATH"
java -version 2>&1 | grep -qE 'version "17' || need_java "found: $(java -version 2>&1 | head -1)"

# What the install depends on: re-install only when one of these changes.
# (macOS has shasum where Linux has sha256sum; both print the same digest.)
sha256=$(command -v sha256sum || echo "shasum -a 256")
want=$(cat requirements.txt adapter/pyproject.toml pyproject.toml | $sha256 | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
  if [ ! -x "$VENV/bin/python" ]; then
    # Debian and Ubuntu ship venv's pip bootstrap (ensurepip) as a package of
    # its own; without it `python -m venv` fails half-way with a long message.
    "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null \
      || need_python "$PYTHON cannot create a virtualenv: its venv module or ensurepip is missing"
  fi
  echo "setup: installing the Python environment in $VENV"
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  log=$VENV/install.log
  { "$VENV/bin/python" -m pip install --upgrade pip \
      && "$VENV/bin/python" -m pip install -r requirements.txt \
      && "$VENV/bin/python" -m pip install --no-deps -e adapter \
      && "$VENV/bin/python" -m pip install --no-deps -e .; } >"$log" 2>&1 \
    || { tail -30 "$log"; die "pip install failed (full log: $log)"; }
  echo "$want" > "$STAMP"
fi

# The Hudi bundle matching the installed pyspark, fetched once: copied from
# ~/.m2 if Maven has it, else downloaded from Maven Central, checksum verified
# (the adapter's own resolution; LAKEHOUSE_MAVEN_REPOSITORY points it at a mirror).
"$VENV/bin/python" -c 'import sys; from pathlib import Path
from dbt.adapters.lakehouse.formats.hudi.bundle import HudiBundleError, fetch
try: fetch(Path(sys.argv[1]), notify=print)
except HudiBundleError as exc: sys.exit(f"setup: {exc}")' "$JARS"

if [ -z "$tests" ]; then
  echo "setup: ready ($("$VENV/bin/python" -c 'import pyspark, dbt.version as v; print("pyspark", pyspark.__version__, "dbt-core", v.__version__)'), $(ls $JARS | paste -sd " " -))"
  exit 0
fi

# --- make test: system packages some tests need --------------------------------

# Removed however the script ends (error, Ctrl-C, kill): the guard file below,
# and the scratch folder Hive's archive is unpacked in.
policy_guard=""
scratch=""
cleanup() {
  if [ -n "$policy_guard" ]; then rm -f /usr/sbin/policy-rc.d; policy_guard=""; fi
  if [ -n "$scratch" ]; then rm -rf "$scratch"; scratch=""; fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# PostgreSQL's server binaries, where adlake.servers.catalog looks for them
# (beside pg_ctl on PATH, or /usr/lib/postgresql/*/bin).
pg_server_found() {
  local d
  for d in "$(dirname "$(readlink -f "$(command -v pg_ctl || echo /none)")")" /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && [ -x "$d/psql" ] && [ -x "$d/pg_isready" ] && return 0
  done
  return 1
}

# Every missing one at once, so a user installs them in one round:
# what it is, its Debian package, its Homebrew formula or cask.
missing_what=() missing_deb=() missing_brew=() missing_cask=()
check_test_packages() {
  missing_what=() missing_deb=() missing_brew=() missing_cask=()
  if ! pg_server_found; then
    missing_what+=("PostgreSQL's server (initdb, pg_ctl, postgres, psql, pg_isready), for the shared-catalog tests")
    missing_deb+=(postgresql) missing_brew+=(postgresql@17)
  fi
  # The docs site's browser test (tests/docs_site.py) hands Selenium Debian's
  # chromium and chromedriver on the PATH (tests/docs_site.py finds them there),
  # never a downloaded driver.
  if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    missing_what+=("Chromium (chromium on PATH), for the docs site's browser test")
    missing_deb+=(chromium) missing_cask+=(chromium)
  fi
  if ! command -v chromedriver >/dev/null 2>&1; then
    missing_what+=("ChromeDriver (chromedriver on PATH), for the docs site's browser test")
    missing_deb+=(chromium-driver) missing_cask+=(chromedriver)
  fi
  # The JDK's debugger holds a test's JVM at a method to kill it there
  # (tests/jvm_breakpoints.py); a JRE without the JDK's tools lacks it.
  if ! command -v jdb >/dev/null 2>&1; then
    missing_what+=("the JDK's debugger (jdb on PATH), for the kill tests held at a method")
    missing_deb+=(openjdk-17-jdk-headless) missing_brew+=(openjdk@17)
  fi
  [ ${#missing_what[@]} = 0 ]
}

# The one message naming everything missing, with one command per system.
missing_message() {  # "after-install" when apt-get has just run
  local what brew=""
  echo "setup: \`make test\` needs what is missing on this machine:"
  for what in "${missing_what[@]}"; do echo "  - $what"; done
  echo "Install it all with one command, then run \`make test\` again:"
  echo "  Debian/Ubuntu: sudo apt-get install -y ${missing_deb[*]}"
  [ ${#missing_brew[@]} = 0 ] || brew="brew install ${missing_brew[*]}"
  [ ${#missing_cask[@]} = 0 ] || brew="${brew:+$brew && }brew install --cask ${missing_cask[*]}"
  echo "  macOS:         $brew"
  [ ${#missing_brew[@]} = 0 ] \
    || echo "                 (postgresql@17 is keg-only: put \$(brew --prefix postgresql@17)/bin on PATH)"
  [ "${1-}" = after-install ] \
    || echo "(Run as root with apt-get, tools/setup.sh --tests installs them itself.)"
}

install_test_packages() {
  echo "setup: installing ${missing_deb[*]} (apt-get; log in .cache/apt.log)"
  mkdir -p .cache
  # No service may start during the install: Debian's postgresql would start a
  # default cluster on port 5432 (policy-rc.d is the packaging's own switch).
  # Only a guard this script created is removed (by cleanup, on any exit).
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy_guard=1
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
  fi
  local ok=0
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing_deb[@]}"; } \
    > .cache/apt.log 2>&1 || ok=$?
  cleanup
  [ "$ok" = 0 ] || { tail -20 .cache/apt.log; die "apt-get install ${missing_deb[*]} failed (full log: .cache/apt.log)"; }
}

if ! check_test_packages; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    install_test_packages
    check_test_packages || { missing_message after-install >&2; die "still missing after apt-get install (log: .cache/apt.log)"; }
  else
    missing_message >&2
    exit 1
  fi
fi

# --- make test: files some tests read, fetched once -----------------------------

# Through the adapter's own fetch (maven.fetch_jar): copied from ~/.m2 if
# Maven has the file, else downloaded from Maven Central (or
# LAKEHOUSE_MAVEN_REPOSITORY), checked against its published .sha1.
fetch_maven() {  # coordinates (group:artifact:version[:extension[:classifier]]), folder, what
  echo "setup: fetching $3 ($1) into $2"
  "$VENV/bin/python" -c 'import sys; from pathlib import Path
from dbt.adapters.lakehouse.maven import JarError, MavenJar, fetch_jar
try: fetch_jar(MavenJar.from_coordinates(sys.argv[1]), sys.argv[3], Path(sys.argv[2]), notify=print)
except JarError as exc: sys.exit(f"setup: {sys.argv[3]}: {exc} (behind a mirror, set LAKEHOUSE_MAVEN_REPOSITORY)")' "$1" "$2" "$3"
}

# The shared catalog (adlake.servers.catalog): PostgreSQL's JDBC driver, and
# Hive 2.3's PostgreSQL metastore schema scripts, which only Hive's
# standalone-metastore distribution on Maven Central carries.
PG_JDBC=org.postgresql:postgresql:42.7.14
HIVE_SCRIPTS=org.apache.hive:hive-standalone-metastore:3.1.3:tar.gz:bin
SCHEMA=.cache/hive-schema/postgres

[ -f "$JARS/postgresql-${PG_JDBC##*:}.jar" ] || fetch_maven "$PG_JDBC" "$JARS" "PostgreSQL's JDBC driver"
if [ ! -f "$SCHEMA/SOURCE" ]; then
  scratch=$(mktemp -d)
  fetch_maven "$HIVE_SCRIPTS" "$scratch" "Hive's metastore schema scripts"
  # Only the PostgreSQL scripts (the archive is ~27 MB; they are ~200 KB),
  # unpacked by Python's tarfile rather than tar, whose wildcard options differ
  # between GNU and BSD. SOURCE marks the folder complete: it is renamed into
  # place last.
  "$VENV/bin/python" -c 'import sys, tarfile; from pathlib import Path, PurePosixPath
out = Path(sys.argv[2]); out.mkdir()
with tarfile.open(sys.argv[1]) as archive:
    for member in archive:
        path = PurePosixPath(member.name)
        if member.isfile() and path.parent.match("*/scripts/metastore/upgrade/postgres"):
            (out / path.name).write_bytes(archive.extractfile(member).read())
if not any(out.iterdir()): sys.exit(f"setup: no scripts/metastore/upgrade/postgres/ in {sys.argv[1]}")' \
    "$scratch"/hive-standalone-metastore-*-bin.tar.gz "$scratch/postgres"
  echo "$HIVE_SCRIPTS scripts/metastore/upgrade/postgres/" > "$scratch/postgres/SOURCE"
  rm -rf "$SCHEMA" && mkdir -p "$(dirname "$SCHEMA")" && mv "$scratch/postgres" "$SCHEMA"
  cleanup
fi

# Spark Connect's server module for the installed pyspark (adlake.servers.spark_server
# start connect): pyspark's pip package carries the client only. The
# coordinates are the ones warm start resolves (Bundle.connect_server).
CONNECT=$("$VENV/bin/python" -c 'from dbt.adapters.lakehouse.formats.hudi.bundle import installed_bundle
print(installed_bundle().connect_server.coordinates)')
IFS=: read -r _ connect_artifact connect_version <<<"$CONNECT"
[ -f "$JARS/$connect_artifact-$connect_version.jar" ] || fetch_maven "$CONNECT" "$JARS" "Spark Connect's server"

# The S3-compatible server the object-store tests start (adlake.servers.object_store):
# s3proxy, Apache-2.0, one jar with its dependencies (the coordinates are the
# module's SERVER_JAR).
S3PROXY=$("$VENV/bin/python" -c 'from adlake.servers.object_store import SERVER_JAR
print(SERVER_JAR.coordinates, SERVER_JAR.jar_name)')
read -r s3proxy_coordinates s3proxy_jar <<<"$S3PROXY"
[ -f "$JARS/$s3proxy_jar" ] || fetch_maven "$s3proxy_coordinates" "$JARS" "the S3 server (s3proxy)"

# Hadoop's S3 connector for the installed pyspark (hadoop-aws and its AWS SDK
# bundle, ~280 MB), which the adapter adds to a session whose warehouse_dir is
# s3a://, and Iceberg's Spark runtime (47 MB), which it adds for a project
# with Iceberg models: fetched here into the adapter's own jar cache, where it
# looks first, so that no test downloads them.
"$VENV/bin/python" -c 'import sys
from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.session import format_jars
from dbt.adapters.lakehouse.storage import connector_jars
try:
    for jar in connector_jars.s3_connector(connector_jars.hadoop_version()):
        maven.fetch_jar(jar, "Hadoop S3 connector", maven.user_cache_dir(), notify=print)
    for label, jar in format_jars.wanted(["iceberg"]).items():
        maven.fetch_jar(jar, label, maven.user_cache_dir(), notify=print)
except maven.JarError as exc:
    sys.exit(f"setup: {exc} (behind a mirror, set LAKEHOUSE_MAVEN_REPOSITORY)")'

# The readers outside Spark (hudi-rs, PyIceberg, delta-rs) that a test reads
# the warehouse's tables with, in a virtualenv of their own: they want a
# newer pyarrow and NumPy than pyspark 3.5 takes (tests/readers/).
READERS=.cache/readers
if ! cmp -s tests/readers/requirements.txt "$READERS/requirements.txt" 2>/dev/null; then
  echo "setup: installing the readers outside Spark into $READERS"
  rm -rf "$READERS"
  "$PYTHON" -m venv "$READERS"
  "$READERS/bin/pip" install -q --disable-pip-version-check -r tests/readers/requirements.txt \
    || die "pip install -r tests/readers/requirements.txt failed"
  cp tests/readers/requirements.txt "$READERS/requirements.txt"
fi

echo "setup: test prerequisites ready (PostgreSQL server, chromium, chromedriver; $JARS: $(ls $JARS | paste -sd " " -); $SCHEMA)"
