"""Secrets stay in the environment; config values cannot inject SQL; servers bind to loopback.

Secrets: a profile takes every field that can carry one from env_var(); dbt
runs debug, seed, run, test and docs generate in a process and Spark JVM of its
own (so that spark_conf is what the JVM starts with), with planted values; no
file of the project (target/, logs/, compiled SQL, the lake) and no line of its
output holds any of them, nor does the JVM's command line.

Injection: a value with a quote, a backslash (trailing too), a backtick, a
semicolon and a second statement, a comment, a newline and a ${env:...}
reference goes into every config the adapter renders into SQL; it comes back
verbatim from the catalog, and the second statement never ran.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml

from tests.dbt_harness import REPO, DbtProject, bytes_unless_gone, failures, files_under, hudi_jar

HELPER = Path(__file__).with_name("dbt_with_secrets.py")

# Each planted secret: the environment variable and the profile field it feeds.
SECRET_FIELDS = {
    "LAKE_TEST_S3_SECRET": "spark_conf",
    "LAKE_TEST_AZURE_KEY": "server_side_parameters",
    "LAKE_TEST_TOKEN": "token",
    "LAKE_TEST_PASSWORD": "password",
    "LAKE_TEST_ODBC_SUFFIX": "connection_string_suffix",
}
# A session setting Spark does not redact by itself (its default redaction
# pattern is secret|password|token|access.key), so nothing hides a leak.
AZURE_KEY = "spark.hadoop.fs.azure.account.key.lake.dfs.core.windows.net"


def env(name: str) -> str:
    return "{{ env_var('" + name + "') }}"


def secrets_profile(schema: str, lake: Path) -> str:
    return yaml.safe_dump(
        {
            "lake_test": {
                "target": "local",
                "outputs": {
                    "local": {
                        "type": "lakehouse",
                        "method": "session",
                        "schema": schema,
                        "lake_dir": str(lake),
                        "hudi_jar": str(hudi_jar()),
                        "threads": 1,
                        # What a real profile sets for object storage; method session ignores
                        # token, password and the ODBC suffix, but dbt still reads them.
                        "spark_conf": {
                            "spark.hadoop.fs.s3a.secret.key": env("LAKE_TEST_S3_SECRET"),
                            "spark.driver.memory": "1g",
                        },
                        "server_side_parameters": {AZURE_KEY: env("LAKE_TEST_AZURE_KEY")},
                        "token": env("LAKE_TEST_TOKEN"),
                        "password": env("LAKE_TEST_PASSWORD"),
                        "connection_string_suffix": env("LAKE_TEST_ODBC_SUFFIX"),
                    }
                },
            }
        }
    )


@pytest.fixture(scope="module")
def secret_run(tmp_path_factory):
    """The child run, its planted secrets and its report."""
    root = tmp_path_factory.mktemp("secrets") / "project"
    # Its own lake: the embedded Derby metastore admits one JVM.
    project = DbtProject(root, "secrets", root / "lake")
    project.write("profiles.yml", secrets_profile(project.schema, root / "lake"))
    project.write("seeds/accounts.csv", "account_id,name\n1,one\n2,two\n")
    project.model(
        "spend",
        """
        {{ config(materialized='incremental', unique_key='account_id', table_type='mor') }}
        select account_id, name, 10 as cost from {{ ref('accounts') }}
    """,
    )
    project.model(
        "spend_view", "{{ config(materialized='view') }} select * from {{ ref('spend') }}"
    )
    project.write(
        "models/schema.yml",
        yaml.safe_dump(
            {
                "version": 2,
                "models": [
                    {
                        "name": "spend",
                        "columns": [{"name": "account_id", "data_tests": ["unique", "not_null"]}],
                    }
                ],
            }
        ),
    )
    project.write(
        "macros/assert_session_setting.sql",
        """
        {% macro assert_session_setting() %}
          {% set found = [] %}
          {% for row in run_query('set').rows if row[0] == '"""
        + AZURE_KEY
        + """' %}
            {% do found.append(local_md5(row[1])) %}
          {% endfor %}
          {% if found != [var('expected_md5')] %}
            {{ exceptions.raise_compiler_error('server_side_parameters did not reach the session') }}
          {% endif %}
        {% endmacro %}
    """,
    )
    secrets = {name: f"planted-{name.lower()}-{uuid.uuid4().hex}" for name in SECRET_FIELDS}
    report_path = root.parent / "report.json"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in secrets.items():
            patch.setenv(name, value)
        # Inside the project folder: the console output is scanned with the rest.
        with (root / "console.log").open("w") as out:
            subprocess.run(
                [sys.executable, str(HELPER), str(root), str(report_path), *secrets],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=root,
                timeout=900,
                check=True,
            )
    return root, secrets, json.loads(report_path.read_text())


def test_dbt_runs_with_every_secret_from_the_environment(secret_run):
    root, _, report = secret_run
    failed = [command for command, ok in report["commands"] if not ok]
    assert not failed, f"failed: {failed}; see {root / 'console.log'}"
    # The secrets were really in use, or finding none of them would prove nothing.
    assert report["spark_conf_applied"]
    assert (root / "target" / "run_results.json").exists() and (root / "logs" / "dbt.log").exists()


def test_no_secret_in_target_logs_compiled_sql_lake_or_output(secret_run):
    root, secrets, _ = secret_run
    scanned = files_under(root)
    sql = {p.relative_to(root).parts[:2] for p in scanned if p.suffix == ".sql"}
    assert {("target", "compiled"), ("target", "run")} <= sql, "no compiled SQL to scan"
    leaks = []
    for path in scanned:
        data = bytes_unless_gone(path)
        leaks += [
            f"{SECRET_FIELDS[name]} in {path.relative_to(root)}"
            for name, value in secrets.items()
            if value.encode() in data
        ]
    assert not leaks, leaks


def test_no_secret_on_the_jvm_command_line(secret_run):
    # Every local user can read a process's command line (ps).
    _, _, report = secret_run
    assert report["jvm_cmdline_secrets"] == []


def test_embedded_driver_listens_on_loopback_only(secret_run):
    _, _, report = secret_run
    assert report["jvm_listening"], "the JVM listens on no socket at all: the check found nothing"
    assert {address for address, _ in report["jvm_listening"]} == {"127.0.0.1"}, report[
        "jvm_listening"
    ]


CREDENTIAL_FIELDS = ("user", "password", "token", "connection_string_suffix", "auth")


def test_repository_profiles_take_credentials_from_the_environment():
    profiles = yaml.safe_load((REPO / "profiles" / "profiles.yml").read_text())
    for profile in profiles.values():
        for name, output in profile["outputs"].items():
            values = [(field, output[field]) for field in CREDENTIAL_FIELDS if field in output]
            for block in ("spark_conf", "server_side_parameters"):
                values += [
                    (f"{block}.{key}", value) for key, value in (output.get(block) or {}).items()
                ]
            for field, value in values:
                assert "env_var(" in str(value), (
                    f"profiles.yml output {name}: {field} is written in the file"
                )


# --- injection ---------------------------------------------------------------

# Everything that could end a quoted value early or smuggle in more SQL; `{schema}`
# is the test's schema, so the smuggled statement would drop a real table.
HOSTILE = (
    "it's \"odd\" `tick` \\n \\' ; drop table {schema}.canary; -- comment\n"
    "line two ${{env:LAKE_TEST_PLANTED}} $\\{{x}} ends in a backslash\\"
)
PLANTED = "planted-environment-value"
ODD_HOODIE_KEY = "hoodie.lake_test.odd`key'; drop table {schema}.canary; --"
ODD_PROPERTY_KEY = "lake_test.odd`key'\"; --\nx"


def hostile_models(project: DbtProject, value: str, column_docs: bool = False) -> None:
    """The canary, and a Hudi model with `value` in every config rendered into SQL
    (its column's description too with column_docs)."""
    project.model(
        "canary", "{{ config(materialized='table', file_format='parquet') }} select 1 as id"
    )
    project.model(
        "hostile",
        """
        {{ config(materialized='incremental', unique_key='id') }}
        select 1 as id, 'a' as name
    """,
    )
    odd_hoodie_key = ODD_HOODIE_KEY.format(schema=project.schema)
    project.write(
        "models/schema.yml",
        yaml.safe_dump(
            {
                "version": 2,
                "models": [
                    {
                        "name": "hostile",
                        "description": value,
                        "config": {
                            "hudi_options": {"hoodie.lake_test.note": value, odd_hoodie_key: value},
                            "tblproperties": {"lake_test.note": value, ODD_PROPERTY_KEY: value},
                            "options": {"hoodie.lake_test.option": value},
                            "persist_docs": {"relation": True, "columns": column_docs},
                        },
                        "columns": [{"name": "id", "description": value}],
                    }
                ],
            }
        ),
    )
    seed = io.StringIO()
    csv.writer(seed).writerows([["id", "note"], [1, value]])
    (project.root / "seeds").mkdir(exist_ok=True)
    (project.root / "seeds" / "hostile_seed.csv").write_text(seed.getvalue())
    project.write(
        "macros/check_write_setting.sql",
        """
        {% macro check_write_setting(key, value) %}
          {% do adapter.replace_write_settings({key: value}) %}
          {% set stored = [] %}
          {% for row in run_query('set').rows if row[0] == key %}{% do stored.append(row[1]) %}{% endfor %}
          {% if stored != [value] %}
            {{ exceptions.raise_compiler_error('SET stored ' ~ stored ~ ' for ' ~ key) }}
          {% endif %}
          {% do adapter.clear_write_settings() %}
          {% for row in run_query('set').rows if row[0] == key %}
            {{ exceptions.raise_compiler_error('RESET left ' ~ key) }}
          {% endfor %}
        {% endmacro %}
    """,
    )


def table_properties(project: DbtProject, table: str) -> dict:
    return {row[0]: row[1] for row in project.rows(f"show tblproperties {{schema}}.{table}")}


def assert_canary_alive(project: DbtProject) -> None:
    assert project.scalar("select count(*) from {schema}.canary") == 1


@pytest.mark.parametrize("run", [1, 2], ids=["create", "alter"])
def test_hostile_config_values_are_stored_verbatim(project, monkeypatch, run):
    monkeypatch.setenv("LAKE_TEST_PLANTED", PLANTED)
    value = created = HOSTILE.format(schema=project.schema)
    hostile_models(project, value)
    project.dbt("seed")
    project.dbt("run")
    if run == 2:
        # The second run finds the table and changes its properties in place (ALTER).
        value = value + " (changed)"
        hostile_models(project, value)
        project.dbt("run")
    assert_canary_alive(project)

    props = table_properties(project, "hostile")
    for key in (
        "hoodie.lake_test.note",
        ODD_HOODIE_KEY.format(schema=project.schema),
        "hoodie.lake_test.option",
        "lake_test.note",
        ODD_PROPERTY_KEY,
    ):
        assert props.get(key) == value, key
    assert PLANTED not in str(props)

    # The table's comment is written when it is created (dbt does not update it on later runs).
    described = {row[0]: row[1] for row in project.rows("describe table extended {schema}.hostile")}
    assert described["Comment"] == created
    assert project.rows("select note from {schema}.hostile_seed")[0][0] == created

    # A SET key and value round-trip through Spark unchanged, and RESET clears them.
    for key in ("hoodie.lake_test.note", ODD_HOODIE_KEY.format(schema=project.schema)):
        project.dbt(
            "run-operation",
            "check_write_setting",
            "--args",
            json.dumps({"key": key, "value": value}),
        )


def test_hostile_column_comment_is_stored_verbatim(project, monkeypatch):
    monkeypatch.setenv("LAKE_TEST_PLANTED", PLANTED)
    value = HOSTILE.format(schema=project.schema)
    hostile_models(project, value, column_docs=True)
    project.dbt("run")
    assert_canary_alive(project)
    comments = {row[0]: row[2] for row in project.rows("describe table {schema}.hostile")}
    assert comments["id"] == value


@pytest.mark.parametrize("config", ["unique_key", "partition_by"])
def test_a_key_column_that_is_not_a_plain_name_is_refused(project, config):
    project.model(
        "canary", "{{ config(materialized='table', file_format='parquet') }} select 1 as id"
    )
    project.dbt("run")
    hostile = f"id) or (1 = 1; drop table {project.schema}.canary; --"
    project.model(
        "bad_key",
        f"""
        {{{{ config(materialized='incremental', {config}={hostile!r}) }}}}
        select 1 as id
    """,
    )
    result = project.dbt("run", "--select", "bad_key", expect_ok=False)
    message = " ".join(failures(result))
    assert "Model 'bad_key'" in message and f"config '{config}'" in message, message
    assert "plain column name" in message, message
    assert_canary_alive(project)
