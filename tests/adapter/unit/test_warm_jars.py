"""Where the warm server's jars come from (no Spark is started): Spark
Connect's server, found or downloaded as the Hudi bundle is, and the
interceptor compiled against it."""

from __future__ import annotations

import shutil
import socket
import zipfile
from pathlib import Path

import pytest

from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.warm import jars as warm_jars

CONNECT = hudi_bundle.installed_bundle().connect_server
REPO_CONNECT_JAR = Path(__file__).resolve().parents[3] / ".cache" / "jars" / CONNECT.jar_name


@pytest.fixture(autouse=True)
def clean_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in (hudi_bundle.CONNECT_JAR_ENV_VAR, maven.CACHE_ENV_VAR, "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    with socket.socket() as sock:  # a port nothing listens on: no real download
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv(maven.REPOSITORY_ENV_VAR, f"http://127.0.0.1:{port}/maven2")
    return home


def test_the_connect_server_jar_matches_the_installed_pyspark():
    import pyspark

    assert CONNECT.coordinates == f"org.apache.spark:spark-connect_2.12:{pyspark.__version__}"


def test_the_connect_jar_comes_from_its_variable_then_the_cache_then_m2(
    tmp_path, clean_home, monkeypatch
):
    in_m2 = clean_home / ".m2" / "repository" / CONNECT.repository_path
    in_m2.parent.mkdir(parents=True)
    in_m2.write_bytes(b"m2")
    assert hudi_bundle.resolve_connect() == in_m2
    cached = maven.user_cache_dir() / CONNECT.jar_name
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"cache")
    assert hudi_bundle.resolve_connect() == cached
    mine = tmp_path / "connect.jar"
    mine.write_bytes(b"mine")
    monkeypatch.setenv(hudi_bundle.CONNECT_JAR_ENV_VAR, str(mine))
    assert hudi_bundle.resolve_connect() == mine
    monkeypatch.setenv(hudi_bundle.CONNECT_JAR_ENV_VAR, str(tmp_path / "typo.jar"))
    with pytest.raises(hudi_bundle.ConnectJarError, match="not a file"):
        hudi_bundle.resolve_connect()


def test_offline_the_warm_server_is_unavailable_and_says_how_to_supply_the_jar(clean_home):
    with pytest.raises(warm_jars.WarmJarsUnavailable) as caught:
        warm_jars.server_jars(notify=lambda _: None)
    message = str(caught.value)
    assert CONNECT.coordinates in message
    assert hudi_bundle.CONNECT_JAR_ENV_VAR in message
    assert f"curl -fL --create-dirs -o {maven.user_cache_dir() / CONNECT.jar_name}" in message
    assert not (maven.user_cache_dir() / CONNECT.jar_name).exists()


def test_without_javac_the_warm_server_is_unavailable(tmp_path, monkeypatch):
    monkeypatch.setattr(warm_jars.local_fs, "_javac", lambda: None)
    with pytest.raises(warm_jars.WarmJarsUnavailable, match="javac"):
        warm_jars.guard_jar(tmp_path / "connect.jar", tmp_path / "cache")


@pytest.mark.skipif(
    not REPO_CONNECT_JAR.is_file() or shutil.which("javac") is None,
    reason="needs the Connect jar (make setup) and a JDK",
)
def test_the_guard_is_compiled_once_against_the_connect_jar(tmp_path):
    jar = warm_jars.guard_jar(REPO_CONNECT_JAR, tmp_path)
    assert "lakehouse/connect/WarmServerGuard.class" in zipfile.ZipFile(jar).namelist()
    stamp = jar.stat().st_mtime_ns
    assert warm_jars.guard_jar(REPO_CONNECT_JAR, tmp_path) == jar
    assert jar.stat().st_mtime_ns == stamp  # not compiled again
