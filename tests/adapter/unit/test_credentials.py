"""Profile parsing of `type: lakehouse` (no Spark is started)."""

from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.session.embedded import HUDI_CATALOG, HUDI_EXTENSION, hudi_session_conf


def test_minimal_session_profile_is_enough():
    creds = LakehouseCredentials.from_dict({"method": "session", "schema": "adlake"})
    assert creds.type == "lakehouse"
    assert creds.host == "embedded"
    assert creds.lake_dir == ".lake"
    assert creds.master == "local[*]"
    # dbt-spark's ANSI switch and our UTC default reach every connection.
    assert creds.server_side_parameters["spark.sql.ansi.enabled"] == "false"
    assert creds.server_side_parameters["spark.sql.session.timeZone"] == "UTC"


def test_session_conf_enables_hudi_and_keeps_the_metastore_in_the_lake(tmp_path):
    conf = hudi_session_conf(tmp_path, tmp_path / "hudi.jar", "local[2]")
    assert conf["spark.sql.extensions"] == HUDI_EXTENSION
    assert conf["spark.sql.catalog.spark_catalog"] == HUDI_CATALOG
    assert conf["spark.serializer"] == "org.apache.spark.serializer.KryoSerializer"
    assert conf["spark.jars"] == str(tmp_path / "hudi.jar")
    assert conf["spark.sql.warehouse.dir"] == str(tmp_path / "warehouse")
    assert str(tmp_path / "metastore_db") in conf["spark.hadoop.javax.jdo.option.ConnectionURL"]


def test_bundle_matches_the_installed_pyspark():
    import pyspark

    spark = ".".join(pyspark.__version__.split(".")[:2])
    assert hudi_bundle.artifact_id().startswith(f"hudi-spark{spark}-bundle_2.1")
    assert hudi_bundle.jar_name().endswith(f"-{hudi_bundle.HUDI_VERSION}.jar")


def test_missing_bundle_says_how_to_get_it(tmp_path, monkeypatch):
    # An empty home: no ~/.m2 and no user cache to find a bundle in.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(hudi_bundle.JAR_ENV_VAR, raising=False)
    try:
        hudi_bundle.locate(cache_dir=tmp_path)
    except hudi_bundle.HudiBundleError as exc:
        assert "hudi_jar" in str(exc) and hudi_bundle.JAR_ENV_VAR in str(exc)
        assert "make setup" not in str(exc)
    else:
        raise AssertionError("locate() found a bundle in an empty folder")


def test_hudi_jar_is_a_profile_field():
    creds = LakehouseCredentials.from_dict(
        {"method": "session", "schema": "adlake", "hudi_jar": "/opt/jars/hudi.jar"}
    )
    assert creds.hudi_jar == "/opt/jars/hudi.jar"


def test_connect_profile_defaults_to_spark_connects_port():
    creds = LakehouseCredentials.from_dict(
        {"method": "connect", "host": "spark.example", "schema": "adlake"}
    )
    assert creds.method == "connect"
    assert creds.port == 15002
    assert not creds.use_ssl and creds.token is None and creds.tls_ca_file is None


def test_an_unknown_method_is_refused():
    import pytest
    from dbt_common.dataclass_schema import ValidationError

    with pytest.raises(ValidationError, match="sparkconnect"):
        LakehouseCredentials.validate({"method": "sparkconnect", "host": "h", "schema": "s"})


def test_debug_shows_each_methods_own_fields_and_no_secret():
    connect = LakehouseCredentials.from_dict(
        {"method": "connect", "host": "h", "schema": "s", "token": "tok-secret", "use_ssl": True}
    )
    keys = connect._connection_keys()
    assert {"host", "port", "use_ssl", "tls_ca_file"} <= set(keys)
    assert "token" not in keys and "lake_dir" not in keys
    session = LakehouseCredentials.from_dict({"method": "session", "schema": "s"})
    assert "lake_dir" in session._connection_keys() and "host" not in session._connection_keys()


def test_thrift_polls_a_running_statement_often():
    # dbt-spark's 5 s would add up to 5 s to each statement still running at
    # its first look.
    creds = LakehouseCredentials.from_dict(
        {"method": "thrift", "host": "h", "port": 10000, "user": "u", "schema": "s"}
    )
    assert creds.poll_interval == 0.1


def test_reading_a_profile_imports_no_spark_session():
    """credentials.py and what it imports from the adapter, followed through
    the adapter's own modules, never reach the embedded session or pyspark:
    a profile is read (dbt debug, parse) without the engine's modules."""
    import ast
    from pathlib import Path

    import dbt.adapters.lakehouse as package

    root = Path(package.__file__).parent
    seen: set[str] = set()
    todo = ["credentials"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = ast.parse((root / f"{name.replace('.', '/')}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            else:
                continue
            for module in modules:
                assert not module.startswith("pyspark"), (name, module)
                prefix = "dbt.adapters.lakehouse."
                if module.startswith(prefix):
                    inner = module[len(prefix) :]
                    if (root / f"{inner.replace('.', '/')}.py").is_file():
                        todo.append(inner)
    assert "lake.metastore" in seen and "session.embedded" not in seen, sorted(seen)
