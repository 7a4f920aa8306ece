# The two commands: `make run` builds the warehouse on the embedded Spark,
# `make test` lints and runs the whole test suite. Each does its own set-up.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
export DBT_PROFILES_DIR := $(CURDIR)/profiles

.PHONY: setup setup-tests run test test-quick lint unit functional bench clean

# What `make run` needs: .venv and the Hudi bundle (in .cache/jars), installed
# by the script; the machine needs only Python 3.11 and Java 17. No root.
setup:
	@tools/setup.sh

# What only `make test` needs besides: PostgreSQL's server, Chromium and
# chromedriver (checked together; apt-get installs them only when run as root,
# otherwise one message names them all), and the test jars and schema scripts
# in .cache/. `--tests` runs the `setup` step first; tools/setup.sh says why
# each one is needed.
setup-tests:
	@tools/setup.sh --tests

run: setup
	$(BIN)/python -m adlake.runner.warehouse

# SQL style (sqlfluff), Python lint and format (ruff), the adapter's types (mypy).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy -p dbt.adapters.lakehouse
	$(BIN)/sqlfluff lint models tests/warehouse/data macros

unit: setup
	$(BIN)/pytest tests/adapter/unit -q

# Three test processes (faster than two on 2 cores; docs/development.md has the
# time), each with its own JVM and lake; a file's tests stay in
# one process (they share class- and module-level fixtures); the longest files
# go first (tests/conftest.py, LONGEST_FIRST).
test: setup-tests lint
	$(BIN)/pytest tests -q -rfE -n 3 --dist loadfile --no-loadscope-reorder --durations=60

# The inner loop, under a minute on the 2-core machine: the linters, the
# tests that need no Spark (the adapter's unit tests, continuous mode's
# scheduling, the generator, landing, the bench report and profiler), and
# one dbt project built on the embedded Spark with the Hudi bundle (dbt's
# simple materializations). Needs only `make setup`; `make test` runs all of it.
QUICK_TESTS := tests/adapter/unit tests/toolkit/test_cadence.py tests/toolkit/test_generator.py \
	tests/toolkit/test_landing.py tests/toolkit/test_bench_report.py tests/toolkit/test_profile_batch.py \
	tests/toolkit/test_target_latency.py \
	tests/adapter/dbt_suite/test_basic.py::TestSimpleMaterializations
test-quick: setup lint
	$(BIN)/pytest $(QUICK_TESTS) -q -rfE

# Every benchmark against its alternative, then BENCHMARKS.md and its plots
# (adlake.bench.suite); `make bench SCALE=large` measures ten times the data.
bench: setup
	$(BIN)/python -m adlake.bench.suite --scale $(or $(SCALE),default)

clean:
	rm -rf .lake target logs
