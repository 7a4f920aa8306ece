# The two commands: `make run` builds the warehouse on the embedded Spark,
# `make test` lints and runs the whole test suite. Each does its own set-up.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
export DBT_PROFILES_DIR := $(CURDIR)/profiles

.PHONY: setup run test lint unit functional bench clean

setup:
	@tools/setup.sh

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

# Two test processes, each with its own JVM and lake; a file's tests stay in
# one process (they share class- and module-level fixtures); the longest files
# go first (tests/conftest.py, LONGEST_FIRST).
test: setup lint
	$(BIN)/pytest tests -q -rfE -n 2 --dist loadfile --no-loadscope-reorder --durations=60

# Every benchmark against its alternative, then BENCHMARKS.md and its plots
# (adlake.bench.suite); `make bench SCALE=large` measures ten times the data.
bench: setup
	$(BIN)/python -m adlake.bench.suite --scale $(or $(SCALE),default)

clean:
	rm -rf .lake target logs
