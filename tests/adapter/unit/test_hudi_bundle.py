"""Where the adapter finds the Hudi bundle, and what it says when it cannot (no Spark started).

Each test gets a home folder of its own (so ~/.m2 and ~/.cache are empty unless
the test puts a jar there) and no LAKEHOUSE_* variables from the caller.
Downloads go to a real HTTP server on 127.0.0.1 serving a Maven-layout folder.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import socket
import threading
from pathlib import Path

import pytest

from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.formats.hudi import bundle as hudi_bundle
from dbt.adapters.lakehouse.session import embedded as embedded_session

BUNDLE = hudi_bundle.installed_bundle()


@pytest.fixture(autouse=True)
def clean_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in (hudi_bundle.JAR_ENV_VAR, maven.CACHE_ENV_VAR, "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    # A unit test that reaches for Maven Central by mistake fails fast instead.
    monkeypatch.setenv(maven.REPOSITORY_ENV_VAR, f"http://127.0.0.1:{closed_port()}")
    return home


def jar_at(path: Path, content: bytes = b"a jar") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def m2_jar(home: Path) -> Path:
    return jar_at(home / ".m2" / "repository" / BUNDLE.repository_path, b"from m2")


def closed_port() -> int:
    """A port nothing listens on: bound by us, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def maven_repo(tmp_path):
    """A Maven-layout folder served over HTTP; yields (root folder, URL)."""
    root = tmp_path / "repo"
    root.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}/maven2"
    server.shutdown()
    server.server_close()


def publish(root: Path, content: bytes, sha1: str = "") -> None:
    jar = jar_at(root / "maven2" / BUNDLE.repository_path, content)
    checksum = sha1 or hashlib.sha1(content).hexdigest()
    Path(f"{jar}.sha1").write_text(f"{checksum}  {jar.name}\n")


# --- which bundle ---------------------------------------------------------------


def test_the_installed_pyspark_needs_the_spark_3_5_scala_2_12_bundle():
    assert BUNDLE.spark == "3.5"
    assert (
        BUNDLE.coordinates
        == f"org.apache.hudi:hudi-spark3.5-bundle_2.12:{hudi_bundle.HUDI_VERSION}"
    )
    assert BUNDLE.repository_path == (
        f"org/apache/hudi/hudi-spark3.5-bundle_2.12/{hudi_bundle.HUDI_VERSION}/"
        f"hudi-spark3.5-bundle_2.12-{hudi_bundle.HUDI_VERSION}.jar"
    )


@pytest.mark.parametrize("version", ["4.0.0", "4.1.1", "3.4.4", "3.3.2"])
def test_an_unsupported_spark_is_refused_naming_the_supported_range(version):
    with pytest.raises(hudi_bundle.UnsupportedSparkError) as caught:
        hudi_bundle.bundle_for(version)
    message = str(caught.value)
    assert f"pyspark {version}" in message
    assert "pyspark>=3.5,<3.6" in message


@pytest.mark.parametrize("version", ["3.5.0", "3.5.7", "3.5.9"])
def test_every_spark_3_5_release_gets_the_same_bundle(version):
    assert hudi_bundle.bundle_for(version).artifact_id == "hudi-spark3.5-bundle_2.12"


def test_an_unsupported_pyspark_fails_before_any_jvm_starts(tmp_path, monkeypatch):
    import pyspark
    from pyspark import SparkContext

    # `make test` runs the functional tests first, in this same process: their
    # JVM may already be up, and then only "no new one" can be checked.
    jvm_before = SparkContext._gateway
    monkeypatch.setattr(pyspark, "__version__", "4.0.0")
    with pytest.raises(hudi_bundle.UnsupportedSparkError, match="pyspark 4.0.0"):
        embedded_session.root_session(str(tmp_path / "lake"), None, "local[1]", {})
    assert SparkContext._gateway is jvm_before  # no JVM was launched
    assert not (tmp_path / "lake").exists()  # refused before any set-up


# --- resolution order -------------------------------------------------------------


def test_the_profile_jar_comes_first(tmp_path, clean_home, monkeypatch):
    profile = jar_at(tmp_path / "profile.jar")
    monkeypatch.setenv(hudi_bundle.JAR_ENV_VAR, str(jar_at(tmp_path / "env.jar")))
    jar_at(tmp_path / "cache" / BUNDLE.jar_name)
    m2_jar(clean_home)
    assert hudi_bundle.resolve(str(profile), cache_dir=tmp_path / "cache") == profile


def test_the_env_var_comes_before_the_caches(tmp_path, clean_home, monkeypatch):
    env = jar_at(tmp_path / "env.jar")
    monkeypatch.setenv(hudi_bundle.JAR_ENV_VAR, str(env))
    jar_at(tmp_path / "cache" / BUNDLE.jar_name)
    m2_jar(clean_home)
    assert hudi_bundle.resolve(None, cache_dir=tmp_path / "cache") == env


def test_the_user_cache_comes_before_the_local_maven_repository(clean_home):
    cached = jar_at(clean_home / ".cache" / "dbt-lakehouse" / "jars" / BUNDLE.jar_name)
    m2_jar(clean_home)
    assert hudi_bundle.resolve() == cached


def test_the_local_maven_repository_is_used_when_the_cache_is_empty(clean_home):
    in_m2 = m2_jar(clean_home)
    assert hudi_bundle.resolve() == in_m2


def test_the_user_cache_follows_xdg_and_its_own_env_var(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert maven.user_cache_dir() == tmp_path / "xdg" / "dbt-lakehouse" / "jars"
    monkeypatch.setenv(maven.CACHE_ENV_VAR, str(tmp_path / "mine"))
    assert maven.user_cache_dir() == tmp_path / "mine"
    cached = jar_at(tmp_path / "mine" / BUNDLE.jar_name)
    assert hudi_bundle.resolve() == cached


def test_a_configured_path_that_is_not_a_file_is_an_error_not_a_fallback(tmp_path, clean_home):
    m2_jar(clean_home)
    with pytest.raises(hudi_bundle.HudiBundleError) as caught:
        hudi_bundle.resolve(str(tmp_path / "typo.jar"))
    assert str(tmp_path / "typo.jar") in str(caught.value)
    assert "hudi_jar" in str(caught.value)


def test_locate_never_downloads(tmp_path):
    with pytest.raises(hudi_bundle.HudiBundleError) as caught:
        hudi_bundle.locate(cache_dir=tmp_path / "cache")
    assert "Downloading" not in str(caught.value)
    assert not (tmp_path / "cache").exists()


# --- downloading ------------------------------------------------------------------


def test_a_missing_bundle_is_downloaded_once_into_the_user_cache(
    clean_home, maven_repo, monkeypatch
):
    root, url = maven_repo
    publish(root, b"bundle bytes")
    monkeypatch.setenv(maven.REPOSITORY_ENV_VAR, url)
    messages = []
    jar = hudi_bundle.resolve(notify=messages.append)
    assert jar == clean_home / ".cache" / "dbt-lakehouse" / "jars" / BUNDLE.jar_name
    assert jar.read_bytes() == b"bundle bytes"
    assert len(messages) == 1 and url in messages[0]
    # No temp file is left next to it, and the second run does not download.
    assert [p.name for p in jar.parent.iterdir()] == [BUNDLE.jar_name]
    (root / "maven2" / BUNDLE.repository_path).unlink()
    assert hudi_bundle.resolve(notify=messages.append) == jar
    assert len(messages) == 1


def test_a_download_that_does_not_match_its_sha1_is_discarded(tmp_path, maven_repo):
    root, url = maven_repo
    publish(root, b"tampered bytes", sha1=hashlib.sha1(b"the real bytes").hexdigest())
    cache = tmp_path / "cache"
    with pytest.raises(hudi_bundle.HudiBundleError, match="SHA-1"):
        hudi_bundle.fetch(cache, repository=url)
    assert list(cache.iterdir()) == []


def test_fetch_fills_a_given_folder_from_the_local_maven_repository(tmp_path, clean_home):
    m2_jar(clean_home)
    target = hudi_bundle.fetch(tmp_path / "jars", repository=f"http://127.0.0.1:{closed_port()}")
    assert target == tmp_path / "jars" / BUNDLE.jar_name
    assert target.read_bytes() == b"from m2"


def test_offline_the_error_says_what_is_missing_what_was_tried_and_how_to_supply_it(
    tmp_path, clean_home
):
    url = f"http://127.0.0.1:{closed_port()}/maven2"
    cache = tmp_path / "cache"
    with pytest.raises(hudi_bundle.HudiBundleError) as caught:
        hudi_bundle.resolve(cache_dir=cache, repository=url)
    message = str(caught.value)
    import pyspark

    assert f"pyspark {pyspark.__version__} (Spark 3.5, Scala 2.12)" in message
    assert BUNDLE.coordinates in message
    # What was tried: both folders and the URL.
    assert str(cache / BUNDLE.jar_name) in message
    assert str(clean_home / ".m2" / "repository" / BUNDLE.repository_path) in message
    assert f"{url}/{BUNDLE.repository_path}" in message
    assert "refused" in message.lower()
    # How to supply it.
    assert "hudi_jar" in message
    assert hudi_bundle.JAR_ENV_VAR in message
    assert (
        f"curl -fL --create-dirs -o {cache / BUNDLE.jar_name} {url}/{BUNDLE.repository_path}"
        in message
    )
    assert maven.REPOSITORY_ENV_VAR in message
    assert "make setup" not in message
    # Nothing half-written is left behind for the next run to trust.
    assert not any(cache.iterdir())


# --- Maven naming (what tools/setup.sh fetches through fetch_jar) ------------------


def test_a_plain_jar_keeps_its_name_path_and_coordinates():
    jar = maven.MavenJar("org.postgresql", "postgresql", "42.7.14")
    assert jar.jar_name == "postgresql-42.7.14.jar"
    assert jar.repository_path == "org/postgresql/postgresql/42.7.14/postgresql-42.7.14.jar"
    assert jar.coordinates == "org.postgresql:postgresql:42.7.14"
    assert BUNDLE.connect_server.jar_name == f"spark-connect_2.12-{BUNDLE.pyspark_version}.jar"


def test_a_classified_archive_is_named_as_maven_lays_it_out():
    archive = maven.MavenJar(
        "org.apache.hive",
        "hive-standalone-metastore",
        "3.1.3",
        classifier="bin",
        extension="tar.gz",
    )
    assert archive.jar_name == "hive-standalone-metastore-3.1.3-bin.tar.gz"
    assert archive.repository_path == (
        "org/apache/hive/hive-standalone-metastore/3.1.3/hive-standalone-metastore-3.1.3-bin.tar.gz"
    )
    assert archive.url("https://repo.example/maven2/") == (
        "https://repo.example/maven2/org/apache/hive/hive-standalone-metastore/3.1.3/"
        "hive-standalone-metastore-3.1.3-bin.tar.gz"
    )
    assert archive.coordinates == "org.apache.hive:hive-standalone-metastore:3.1.3:tar.gz:bin"


def test_an_extension_without_a_classifier():
    pom = maven.MavenJar("org.example", "thing", "1.0", extension="pom")
    assert pom.jar_name == "thing-1.0.pom"
    assert pom.coordinates == "org.example:thing:1.0:pom"


@pytest.mark.parametrize(
    "coordinates",
    [
        "org.postgresql:postgresql:42.7.14",
        "org.example:thing:1.0:pom",
        "org.apache.hive:hive-standalone-metastore:3.1.3:tar.gz:bin",
    ],
)
def test_coordinates_parse_back_to_the_same_artifact(coordinates):
    assert maven.MavenJar.from_coordinates(coordinates).coordinates == coordinates


def test_classifier_and_extension_parse_in_mavens_order():
    parsed = maven.MavenJar.from_coordinates("g.h:a:1:tar.gz:bin")
    assert (parsed.extension, parsed.classifier) == ("tar.gz", "bin")
    assert maven.MavenJar.from_coordinates("g.h:a:1") == maven.MavenJar("g.h", "a", "1")


@pytest.mark.parametrize("coordinates", ["g:a", "g:a:1:jar:c:extra", "g::1", "g:a:1:"])
def test_malformed_coordinates_are_refused(coordinates):
    with pytest.raises(ValueError, match="not Maven coordinates"):
        maven.MavenJar.from_coordinates(coordinates)


def test_fetch_jar_downloads_a_classified_archive_checksum_verified(tmp_path, maven_repo):
    root, url = maven_repo
    archive = maven.MavenJar.from_coordinates("org.example:dist:2.0:tar.gz:bin")
    published = jar_at(root / "maven2" / archive.repository_path, b"archive bytes")
    Path(f"{published}.sha1").write_text(hashlib.sha1(b"archive bytes").hexdigest())
    target = maven.fetch_jar(archive, "an archive", tmp_path / "out", repository=url)
    assert target == tmp_path / "out" / "dist-2.0-bin.tar.gz"
    assert target.read_bytes() == b"archive bytes"


def test_fetch_jar_copies_a_classified_archive_from_the_local_maven_repository(
    tmp_path, clean_home
):
    archive = maven.MavenJar("org.example", "dist", "2.0", "bin", "tar.gz")
    jar_at(clean_home / ".m2" / "repository" / archive.repository_path, b"from m2")
    target = maven.fetch_jar(archive, "an archive", tmp_path / "out")
    assert target.read_bytes() == b"from m2"
