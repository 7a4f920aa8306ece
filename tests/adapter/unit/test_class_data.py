"""class_data: which archive a session's JVM maps, which session records one,
and the archive written by a real JVM (a small one, not Spark: the embedded
session's use of it is tests/adapter/functional/targets/test_class_data.py)."""

from __future__ import annotations

import os
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from dbt.adapters.lakehouse.session import class_data

SLEEPER = """
public class Sleeper {
    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        Thread.sleep(Long.parseLong(args[0]));
    }
}
"""


def test_the_archive_is_named_for_the_java_and_the_class_path(tmp_path):
    jar = tmp_path / "a.jar"
    jar.write_bytes(b"one")
    java = class_data.java_binary()
    assert java is not None
    first = class_data.archive_path(tmp_path, java, [str(jar)])
    assert first == class_data.archive_path(tmp_path, java, [str(jar)])
    assert first.parent == tmp_path / "class-data" and first.suffix == ".jsa"
    # Another jar at the same path (rebuilt), or another class path: another archive.
    jar.write_bytes(b"two, longer")
    assert class_data.archive_path(tmp_path, java, [str(jar)]) != first
    assert class_data.archive_path(tmp_path, java, []) != first


def test_one_session_records_at_a_time_and_later_ones_map_the_archive(tmp_path):
    archive = tmp_path / "class-data" / "spark-x.jsa"
    jcmd = tmp_path / "jcmd"
    recording = class_data.ClassData(archive, jcmd)
    assert recording.jvm_options() == ["-XX:+RecordDynamicDumpInfo", class_data.QUIET]
    assert recording.lock.read_text() == str(os.getpid())
    # While it records, another session starts without an archive.
    assert class_data.ClassData(archive, jcmd).jvm_options() == []
    # A recording process that died leaves its lock to the next one.
    recording.lock.write_text("999999999")
    assert class_data.ClassData(archive, jcmd).jvm_options()[0] == "-XX:+RecordDynamicDumpInfo"
    recording.lock.unlink()
    # A session told not to record (the warm server) does not.
    assert class_data.ClassData(archive, jcmd).jvm_options(record=False) == []
    # Without jcmd nothing records.
    assert class_data.ClassData(archive, None).jvm_options() == []
    archive.write_bytes(b"archive")
    assert class_data.ClassData(archive, None).jvm_options() == [
        f"-XX:SharedArchiveFile={archive}",
        class_data.QUIET,
    ]


def test_turned_off_by_the_environment_or_a_folder_on_the_class_path(tmp_path, monkeypatch):
    for name in ("SPARK_HOME", "SPARK_CONF_DIR", "SPARK_DIST_CLASSPATH", "HADOOP_CONF_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert class_data.for_session(tmp_path, []) is not None
    monkeypatch.setenv(class_data.ENV_VAR, "0")
    assert class_data.for_session(tmp_path, []) is None
    monkeypatch.delenv(class_data.ENV_VAR)
    folder = tmp_path / "conf"
    folder.mkdir()
    assert class_data.for_session(tmp_path, [str(folder)]) is not None  # empty: harmless
    (folder / "core-site.xml").write_text("<configuration/>")
    assert class_data.for_session(tmp_path, [str(folder)]) is None
    monkeypatch.setenv("HADOOP_CONF_DIR", str(folder))
    assert class_data.for_session(tmp_path, []) is None
    monkeypatch.delenv("HADOOP_CONF_DIR")
    # Spark's launcher puts its configuration folder first on the class path
    # (seen in the JVM's java.class.path): a spark-defaults.conf there too.
    monkeypatch.setenv("SPARK_CONF_DIR", str(folder))
    assert class_data.for_session(tmp_path, []) is None
    monkeypatch.delenv("SPARK_CONF_DIR")
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    assert class_data.for_session(tmp_path, []) is None  # SPARK_HOME/conf is the folder


def test_a_recording_jvm_writes_an_archive_that_a_new_jvm_maps(tmp_path):
    java = class_data.java_binary()
    if java is None or not java.with_name("jcmd").is_file():
        pytest.skip("needs a JDK's java and jcmd")
    (tmp_path / "Sleeper.java").write_text(SLEEPER)
    subprocess.run([str(java.with_name("javac")), "Sleeper.java"], cwd=tmp_path, check=True)
    jar = tmp_path / "sleeper.jar"
    with zipfile.ZipFile(jar, "w") as archive_of_classes:
        archive_of_classes.write(tmp_path / "Sleeper.class", "Sleeper.class")
    archive = tmp_path / "cache" / "class-data" / "spark-x.jsa"
    session = class_data.ClassData(archive, java.with_name("jcmd"))
    options = session.jvm_options()
    jvm = subprocess.Popen(
        [str(java), *options, "-cp", str(jar), "Sleeper", "60000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert jvm.stdout is not None and jvm.stdout.readline() == "ready\n"
        told: list[str] = []
        # A folder with files on the class path: the JVM would exit instead
        # of writing, so nothing asks it to.
        guarded = class_data.ClassData(tmp_path / "other" / "spark-y.jsa", java.with_name("jcmd"))
        assert guarded.jvm_options()[0] == "-XX:+RecordDynamicDumpInfo"
        assert not guarded.write(jvm.pid, f"{jar}{os.pathsep}{tmp_path}", told.append)
        assert "a folder is on the class path" in told[-1] and not guarded.lock.exists()
        assert jvm.poll() is None
        assert session.write(jvm.pid, str(jar), told.append), told
        assert "class-data archive" in told[-1]
        # No attach socket left behind, which a JVM killed later would leave for good.
        assert not Path(f"/tmp/.java_pid{jvm.pid}").exists()
    finally:
        jvm.kill()
        jvm.wait()
    # Complete, in place, nothing half-written beside it, the lock gone.
    assert sorted(p.name for p in archive.parent.iterdir()) == [archive.name]
    # A JVM with the same class path maps it: -Xshare:on fails when it cannot.
    mapped = subprocess.run(
        [
            str(java),
            "-Xshare:on",
            *class_data.ClassData(archive, None).jvm_options(),
            "-cp",
            str(jar),
            "-Xlog:class+load=info",
            "Sleeper",
            "0",
        ],
        capture_output=True,
        text=True,
    )
    assert mapped.returncode == 0, mapped.stdout[-2000:] + mapped.stderr[-2000:]
    assert "Sleeper source: shared objects file (top)" in mapped.stdout


def test_only_the_most_recently_used_archives_are_kept(tmp_path):
    now = time.time()
    archives = []
    for age in range(class_data.KEEP + 2):  # hours since last used
        archive = tmp_path / f"spark-{age}.jsa"
        archive.write_bytes(b"x")
        os.utime(archive, (now - age * 3600, now - age * 3600))
        archives.append(archive)
    killed = tmp_path / "spark-9.jsa.abc.tmp"  # a dump killed two hours ago
    killed.write_bytes(b"x")
    os.utime(killed, (now - 7200, now - 7200))
    writing = tmp_path / "spark-8.jsa.def.tmp"  # a dump under way
    writing.write_bytes(b"x")
    class_data._remove_unused(tmp_path, keep=archives[-1])
    left = sorted(p.name for p in tmp_path.iterdir())
    # The KEEP most recently used, and the one just written.
    kept = [a.name for a in archives[: class_data.KEEP]] + [archives[-1].name]
    assert left == sorted([*kept, writing.name]), left
