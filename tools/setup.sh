#!/usr/bin/env bash
# Idempotent set-up: a virtualenv with the pinned stack and the adapter
# (editable), and the Hudi Spark bundle in .cache/jars. A second run only
# checks and returns in seconds.
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
want=$(cat requirements.txt adapter/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
  echo "setup: installing the Python environment in $VENV"
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  log=$VENV/install.log
  { "$VENV/bin/python" -m pip install --upgrade pip \
      && "$VENV/bin/python" -m pip install -r requirements.txt \
      && "$VENV/bin/python" -m pip install --no-deps -e adapter; } >"$log" 2>&1 \
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
echo "setup: ready ($("$VENV/bin/python" -c 'import pyspark, dbt.version as v; print("pyspark", pyspark.__version__, "dbt-core", v.__version__)'), $(ls $JARS))"
