"""The embedded session's local file system (the adapter's local_fs.py): Hadoop's,
with each new file's permission set by a system call instead of a chmod child
process. The permissions on disk must be what Hadoop would have set."""

import os
import stat

from tests.functional.conftest import spark


def test_files_get_the_permissions_hadoop_gives_them_without_chmod(project, tmp_path):
    project.model("events", "{{ config(materialized='table', unique_key='id') }} select 1 as id, 'a' as v")
    project.dbt("run")  # starts the embedded session
    assert project.scalar("select count(*) from {schema}.events") == 1

    jvm = spark().sparkContext._jvm
    hadoop = jvm.org.apache.hadoop
    conf = spark().sparkContext._jsc.hadoopConfiguration()
    local = hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)
    assert local.getClass().getName() == "lakehouse.hadoop.NioLocalFileSystem"
    assert local.getRawFileSystem().getClass().getName() == "lakehouse.hadoop.NioLocalFileSystem$Raw"

    def mode(path) -> int:
        return stat.S_IMODE(os.stat(path).st_mode)

    umask = hadoop.fs.permission.FsPermission.getUMask(conf).toShort()  # Hadoop's, not the process's
    permission = hadoop.fs.permission.FsPermission.createImmutable
    folder = tmp_path / "made_by_hadoop"
    assert local.mkdirs(hadoop.fs.Path(str(folder)), permission(0o751))
    assert mode(folder) == 0o751 & ~umask

    written = folder / "part-0.txt"
    out = local.create(hadoop.fs.Path(str(written)), permission(0o640), True, 4096, 1, 1 << 20, None)
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
