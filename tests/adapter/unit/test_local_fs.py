"""local_fs: when the embedded session gets the local file system without a
chmod child process, and when it keeps Hadoop's (the functional test in
tests/adapter/functional/hudi_tables/ checks the permissions it sets); and
local_hadoop_conf: which sessions leave YARN's defaults out."""

import zipfile

from dbt.adapters.lakehouse.session import hadoop_conf as local_hadoop_conf
from dbt.adapters.lakehouse.session import jdk, local_fs


def test_a_cluster_master_keeps_hadoops_file_system(tmp_path):
    told = []
    assert local_fs.session_conf("spark://127.0.0.1:7077", tmp_path, told.append) == {}
    assert not list(tmp_path.iterdir())  # nothing compiled for it


def test_without_javac_the_session_keeps_hadoops_and_says_why(tmp_path, monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(jdk.shutil, "which", lambda name: None)
    told = []
    assert local_fs.session_conf("local[2]", tmp_path, told.append) == {}
    assert told and "no javac" in told[0] and "chmod" in told[0]


def test_the_class_is_compiled_once_into_the_cache(tmp_path):
    told = []
    conf = local_fs.session_conf("local[*]", tmp_path, told.append)
    assert not told, told
    jar = conf["spark.driver.extraClassPath"]
    assert conf["spark.hadoop.fs.file.impl"] == local_fs.CLASS_NAME
    with zipfile.ZipFile(jar) as archive:
        assert {
            "lakehouse/hadoop/NioLocalFileSystem.class",
            "lakehouse/hadoop/NioLocalFileSystem$Raw.class",
        } <= set(archive.namelist())
    # A second session finds it there.
    assert local_fs.jar(tmp_path, told.append) == local_fs.Path(jar)
    assert len(list(tmp_path.glob("*.jar"))) == 1 and not list(tmp_path.glob("*.tmp"))


def test_yarns_defaults_are_left_out_of_local_sessions_only(tmp_path):
    [jar] = local_hadoop_conf.class_path("local[*]", tmp_path)
    with zipfile.ZipFile(jar) as archive:
        shadow = archive.read("yarn-default.xml").decode()
    assert "<property>" not in shadow and "<configuration>" in shadow
    # Written once: a second session finds it, and nothing is left half-written.
    assert local_hadoop_conf.class_path("local[2]", tmp_path) == [jar]
    assert len(list(tmp_path.glob("*.jar"))) == 1 and not list(tmp_path.glob("*.tmp"))
    assert local_hadoop_conf.class_path("spark://127.0.0.1:7077", tmp_path) == []
    assert local_hadoop_conf.class_path("yarn", tmp_path) == []
