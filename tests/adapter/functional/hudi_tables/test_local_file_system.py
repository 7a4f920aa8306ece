"""The embedded session's local file system (the adapter's session/local_fs.py): Hadoop's,
with each new file's permission set, and each status's permission read, by a
system call instead of a child process (chmod, `ls -ld`, readlink). The
permissions on disk must be what Hadoop would have set, and the statuses must
say what the disk says. And the session's Hadoop configuration, without
YARN's defaults (the adapter's session/hadoop_conf.py)."""

import grp
import os
import pwd
import stat

import pytest

from tests.dbt_harness import spark


def test_files_get_the_permissions_hadoop_gives_them_without_chmod(project, tmp_path):
    project.model(
        "events", "{{ config(materialized='table', unique_key='id') }} select 1 as id, 'a' as v"
    )
    project.dbt("run")  # starts the embedded session
    assert project.scalar("select count(*) from {schema}.events") == 1

    jvm = spark().sparkContext._jvm
    hadoop = jvm.org.apache.hadoop
    conf = spark().sparkContext._jsc.hadoopConfiguration()
    local = hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)
    assert local.getClass().getName() == "lakehouse.hadoop.NioLocalFileSystem"
    assert (
        local.getRawFileSystem().getClass().getName() == "lakehouse.hadoop.NioLocalFileSystem$Raw"
    )

    def mode(path) -> int:
        return stat.S_IMODE(os.stat(path).st_mode)

    umask = hadoop.fs.permission.FsPermission.getUMask(
        conf
    ).toShort()  # Hadoop's, not the process's
    permission = hadoop.fs.permission.FsPermission.createImmutable
    folder = tmp_path / "made_by_hadoop"
    assert local.mkdirs(hadoop.fs.Path(str(folder)), permission(0o751))
    assert mode(folder) == 0o751 & ~umask

    written = folder / "part-0.txt"
    out = local.create(
        hadoop.fs.Path(str(written)), permission(0o640), True, 4096, 1, 1 << 20, None
    )
    out.write(bytearray(b"hello"))
    out.close()
    assert written.read_bytes() == b"hello"
    assert mode(written) == 0o640 & ~umask
    assert (folder / ".part-0.txt.crc").is_file()  # still the checksummed file system

    local.setPermission(hadoop.fs.Path(str(written)), permission(0o604))
    assert mode(written) == 0o604
    # A sticky bit, which java.nio cannot set: Hadoop's own chmod does.
    local.setPermission(hadoop.fs.Path(str(folder)), permission(0o1777))
    assert mode(folder) == 0o1777

    # The model's own files were written through it, with Hadoop's default modes.
    table = project.lake_dir / "warehouse" / f"{project.schema}.db" / "events"
    data_files = list(table.rglob("*.parquet"))
    assert data_files and all(mode(path) == 0o666 & ~umask for path in data_files)

    # Statuses: read by one stat call, and what the disk says (Hadoop's own
    # class would fork `ls -ld` for the permission, owner and group).
    def assert_status_of(path, status):
        assert status.getClass().getName() == "lakehouse.hadoop.NioLocalFileSystem$Status"
        info = os.stat(path)
        assert status.getPermission().toShort() == stat.S_IMODE(info.st_mode)
        assert status.getOwner() == pwd.getpwuid(info.st_uid).pw_name
        assert status.getGroup() == grp.getgrgid(info.st_gid).gr_name
        assert status.isDirectory() == path.is_dir()
        if path.is_file():
            assert status.getLen() == info.st_size
        assert status.getModificationTime() == info.st_mtime_ns // 1_000_000

    raw = local.getRawFileSystem()
    assert_status_of(written, raw.getFileStatus(hadoop.fs.Path(str(written))))
    assert_status_of(
        folder, raw.getFileStatus(hadoop.fs.Path(str(folder)))
    )  # the sticky bit read back
    listed = {
        status.getPath().getName(): status for status in raw.listStatus(hadoop.fs.Path(str(folder)))
    }
    assert set(listed) == {"part-0.txt", ".part-0.txt.crc"}
    assert_status_of(written, listed["part-0.txt"])
    assert_status_of(
        written, raw.listStatus(hadoop.fs.Path(str(written)))[0]
    )  # a file's own listing
    assert [s.getPath().getName() for s in local.listStatus(hadoop.fs.Path(str(folder)))] == [
        "part-0.txt"
    ]
    assert_status_of(written, raw.getFileLinkStatus(hadoop.fs.Path(str(written))))
    missing = hadoop.fs.Path(str(folder / "missing"))
    assert not local.exists(missing)
    # py4j's error, carrying the FileNotFoundException Hadoop's class throws.
    with pytest.raises(Exception, match=r"FileNotFoundException: File .*missing does not exist"):
        raw.getFileStatus(missing)

    # A symbolic link's own status is still Hadoop's (it reads the link).
    link = tmp_path / "link_to_part"
    link.symlink_to(written)
    link_status = raw.getFileLinkStatus(hadoop.fs.Path(str(link)))
    assert link_status.isSymlink() and link_status.getSymlink().toUri().getPath() == str(written)
    assert_status_of(written, raw.getFileStatus(hadoop.fs.Path(str(link))))  # followed


def test_the_sessions_hadoop_configuration_leaves_yarns_defaults_out(project):
    """A local session's Hadoop configuration has no YARN defaults (the
    adapter's empty yarn-default.xml comes first on the driver's class path:
    session/hadoop_conf.py), and keeps Hadoop's core and MapReduce ones; a
    model written and read through it (Hudi's tasks get that configuration)
    holds its rows."""
    project.model(
        "events", "{{ config(materialized='table', unique_key='id') }} select 1 as id, 'a' as v"
    )
    project.dbt("run")
    assert project.scalar("select count(*) from {schema}.events") == 1

    jvm = spark().sparkContext._jvm
    conf = jvm.org.apache.hadoop.conf.Configuration()  # as Hudi makes one per file read
    found = (
        jvm.java.lang.Thread.currentThread().getContextClassLoader().getResource("yarn-default.xml")
    )
    assert "/lakehouse-hadoop-local-" in found.toString() and found.getProtocol() == "jar"
    assert conf.get("yarn.resourcemanager.address") is None
    assert conf.get("yarn.nodemanager.resource.memory-mb") is None
    # Hadoop's other defaults are all there.
    assert conf.get("fs.defaultFS") == "file:///"
    assert conf.get("mapreduce.framework.name") == "local"
    session_conf = spark().sparkContext._jsc.hadoopConfiguration()
    yarn_keys = [
        str(entry.getKey())
        for entry in session_conf.iterator()
        if str(entry.getKey()).startswith("yarn.")
    ]
    assert len(yarn_keys) < 50, yarn_keys  # 463 with Hadoop's yarn-default.xml
