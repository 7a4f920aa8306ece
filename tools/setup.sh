#!/usr/bin/env bash
# Idempotent set-up: a virtualenv with the pinned stack, the adapter and the
# warehouse toolkit (adlake/, both editable), and the Hudi Spark bundle in
# .cache/jars. A second run only checks and returns in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
JARS=.cache/jars
STAMP=$VENV/.installed

die() { echo "setup: $*" >&2; exit 1; }

# Prerequisites that must be on the machine already.
command -v python3.11 >/dev/null 2>&1 || command -v python3 >/dev/null 2>&1 || die "Python 3.11 is required."
PYTHON=$(command -v python3.11 || command -v python3)
"$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
  || die "Python 3.11 is required (found $("$PYTHON" --version 2>&1))."
command -v java >/dev/null 2>&1 || die "Java 17 is required (apt-get install openjdk-17-jdk-headless)."
java -version 2>&1 | grep -qE 'version "17' || die "Java 17 is required (found: $(java -version 2>&1 | head -1))."

# What the install depends on: re-install only when one of these changes.
want=$(cat requirements.txt adapter/pyproject.toml pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
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
from dbt.adapters.lakehouse.hudi_bundle import HudiBundleError, fetch
try: fetch(Path(sys.argv[1]), notify=print)
except HudiBundleError as exc: sys.exit(f"setup: {exc}")' "$JARS"

# The shared catalog (adlake.servers.catalog): PostgreSQL's server binaries (Debian's
# package, installed only if missing), its JDBC driver, and Hive 2.3's
# PostgreSQL metastore schema scripts, which only Hive's standalone-metastore
# distribution on Maven Central carries. Each fetched once.
PG_JDBC=org.postgresql:postgresql:42.7.14
HIVE_SCRIPTS=org.apache.hive:hive-standalone-metastore:3.1.3:tar.gz:bin
SCHEMA=.cache/hive-schema/postgres

pg_server_found() {
  local d
  for d in "$(dirname "$(readlink -f "$(command -v pg_ctl || echo /none)")")" /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && [ -x "$d/psql" ] && [ -x "$d/pg_isready" ] && return 0
  done
  return 1
}
apt_install() {  # what, package
  { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; } \
    || die "$1 is required: apt-get update && apt-get install -y $2"
  echo "setup: installing $2 (apt-get)"
  mkdir -p .cache
  # No service may start during the install: Debian's postgresql would start a
  # default cluster on port 5432 (policy-rc.d is the packaging's own switch).
  local guard=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && guard=1
  fi
  local ok=0
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "$2"; } > .cache/apt.log 2>&1 || ok=$?
  [ -z "$guard" ] || rm -f /usr/sbin/policy-rc.d
  [ "$ok" = 0 ] || { tail -20 .cache/apt.log; die "apt-get install $2 failed (full log: .cache/apt.log)"; }
}
mvn_copy() {  # artifact, output folder
  command -v mvn >/dev/null 2>&1 || apt_install "Maven (mvn)" maven
  mkdir -p .cache
  mvn -B -q dependency:copy -Dartifact="$1" -DoutputDirectory="$2" > .cache/mvn.log 2>&1 \
    || { tail -20 .cache/mvn.log; die "mvn dependency:copy $1 failed (full log: .cache/mvn.log)"; }
}

pg_server_found || apt_install "PostgreSQL's server (initdb, pg_ctl, postgres)" postgresql
jdbc_jar=$JARS/postgresql-${PG_JDBC##*:}.jar
if [ ! -f "$jdbc_jar" ]; then
  echo "setup: fetching $PG_JDBC into $JARS"
  mvn_copy "$PG_JDBC" "$JARS"
fi
if [ ! -f "$SCHEMA/SOURCE" ]; then
  echo "setup: fetching Hive's metastore schema scripts ($HIVE_SCRIPTS) into $SCHEMA"
  scratch=$(mktemp -d)
  mvn_copy "$HIVE_SCRIPTS" "$scratch"
  tar xzf "$scratch"/hive-standalone-metastore-*-bin.tar.gz -C "$scratch" --wildcards '*/scripts/metastore/upgrade/postgres/*'
  mkdir -p "$scratch/postgres"
  cp "$scratch"/*/scripts/metastore/upgrade/postgres/* "$scratch/postgres/"
  echo "$HIVE_SCRIPTS scripts/metastore/upgrade/postgres/" > "$scratch/postgres/SOURCE"
  rm -rf "$SCHEMA" && mkdir -p "$(dirname "$SCHEMA")" && mv "$scratch/postgres" "$SCHEMA"
  rm -rf "$scratch"
fi
# Spark Connect's server module for the installed pyspark (adlake.servers.spark_server
# start connect): pyspark's pip package carries the client only.
CONNECT=org.apache.spark:spark-connect_2.12:$("$VENV/bin/python" -c 'import pyspark; print(pyspark.__version__)')
connect_jar=$JARS/spark-connect_2.12-${CONNECT##*:}.jar
if [ ! -f "$connect_jar" ]; then
  echo "setup: fetching $CONNECT into $JARS"
  mvn_copy "$CONNECT" "$JARS"
fi
# The docs site's browser test (tests/warehouse/test_docs_site.py): headless
# Chromium and its WebDriver from Debian's packages, each installed only if
# missing (Selenium is pointed at /usr/bin/chromedriver, never a downloaded one).
command -v chromium >/dev/null 2>&1 || apt_install "Chromium (the docs site's browser test)" chromium
[ -x /usr/bin/chromedriver ] || apt_install "ChromeDriver (the docs site's browser test)" chromium-driver
echo "setup: ready ($("$VENV/bin/python" -c 'import pyspark, dbt.version as v; print("pyspark", pyspark.__version__, "dbt-core", v.__version__)'), $(ls $JARS | paste -sd " " -))"
