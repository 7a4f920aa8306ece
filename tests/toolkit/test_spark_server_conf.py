"""The settings the project's Thrift and Connect servers start with
(adlake.servers.spark_server.server_conf): the embedded session's, with
YARN's defaults left out of a local master's Hadoop configuration, as the
embedded session leaves them (the servers' own tests run queries on them)."""

import os
import zipfile
from pathlib import Path

from adlake.servers import spark_server
from dbt.adapters.lakehouse.session import hadoop_conf as local_hadoop_conf


def test_a_local_server_leaves_yarns_defaults_out_and_a_cluster_one_keeps_them(tmp_path):
    local = spark_server.server_conf("thrift", tmp_path, "local[2]", None)
    first, *rest = local["spark.driver.extraClassPath"].split(os.pathsep)
    assert Path(first).name.startswith("lakehouse-hadoop-local-") and first.endswith(".jar")
    with zipfile.ZipFile(first) as jar:
        assert jar.namelist() == [local_hadoop_conf.RESOURCE]
    assert any(path.endswith(".jar") and "hudi" in path for path in rest)

    cluster = spark_server.server_conf("thrift", tmp_path, "spark://127.0.0.1:7077", None)
    assert "lakehouse-hadoop-local-" not in cluster["spark.driver.extraClassPath"]
    assert cluster["spark.executor.extraClassPath"] == cluster["spark.driver.extraClassPath"]
