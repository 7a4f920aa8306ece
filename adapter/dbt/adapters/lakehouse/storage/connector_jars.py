"""The jars a warehouse on an object store needs (storage/locations.py says where the
warehouse is). Hadoop's S3 connector is not in pyspark's jars: for an s3a://
warehouse the session adds hadoop-aws for the installed Hadoop and the AWS
SDK it was built against, found or downloaded like the Hudi bundle
(maven.fetch_jar: the cache, ~/.m2, Maven Central with its checksum).
The connectors of the other object stores are the user's to add
(`spark.jars.packages`); a warehouse on one without them fails before Spark
starts, naming them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse import maven
from dbt.adapters.lakehouse.storage.locations import scheme

# The file systems whose client Hadoop's own jars in pyspark carry.
BUILT_IN = {"file", "hdfs", "viewfs"}
# hadoop-aws of each Hadoop release is built against one AWS SDK bundle (its
# POM's aws-java-sdk.version): a different one fails at run time.
AWS_SDK_FOR_HADOOP = {"3.3.4": "1.12.262", "3.3.6": "1.12.367"}
# The connector a user adds for the object stores the adapter fetches nothing for.
CONNECTORS = {
    "gs": "com.google.cloud.bigdataoss:gcs-connector (its shaded jar for Hadoop 3)",
    "abfs": "org.apache.hadoop:hadoop-azure for Hadoop {hadoop}",
    "abfss": "org.apache.hadoop:hadoop-azure for Hadoop {hadoop}",
    "wasb": "org.apache.hadoop:hadoop-azure for Hadoop {hadoop}",
    "wasbs": "org.apache.hadoop:hadoop-azure for Hadoop {hadoop}",
    "oss": "org.apache.hadoop:hadoop-aliyun for Hadoop {hadoop}",
}


def hadoop_version() -> str:
    """The Hadoop release of the installed pyspark (its hadoop-client-api jar)."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    for jar in jars.glob("hadoop-client-api-*.jar"):
        return jar.name.removeprefix("hadoop-client-api-").removesuffix(".jar")
    raise DbtRuntimeError(f"no hadoop-client-api jar in {jars}: is pyspark installed whole?")


def s3_connector(hadoop: str) -> list[maven.MavenJar]:
    """hadoop-aws for `hadoop` and the AWS SDK bundle it was built against."""
    sdk = AWS_SDK_FOR_HADOOP.get(hadoop)
    if sdk is None:
        raise DbtRuntimeError(
            f"the adapter knows no AWS SDK for Hadoop {hadoop} (known: "
            f"{', '.join(sorted(AWS_SDK_FOR_HADOOP))}): add hadoop-aws {hadoop} and its SDK "
            "in spark_conf `spark.jars.packages`"
        )
    return [
        maven.MavenJar("org.apache.hadoop", "hadoop-aws", hadoop),
        maven.MavenJar("com.amazonaws", "aws-java-sdk-bundle", sdk),
    ]


def connector_jars(
    location: str, spark_conf: dict[str, str], notify: Callable[[str], None]
) -> list[Path]:
    """The jars the session needs for a warehouse at `location`, fetched on
    first use; [] for the file systems Hadoop carries."""
    kind = scheme(location)
    if kind in BUILT_IN:
        return []
    hadoop = hadoop_version()
    own = f"{spark_conf.get('spark.jars.packages', '')},{spark_conf.get('spark.jars', '')}"
    if kind == "s3a" and "hadoop-aws" not in own:
        wanted = s3_connector(hadoop)
        try:
            return [
                maven.fetch_jar(
                    jar,
                    f"Hadoop's S3 connector ({jar.artifact_id})",
                    maven.user_cache_dir(),
                    notify=notify,
                )
                for jar in wanted
            ]
        except maven.JarError as exc:
            raise DbtRuntimeError(
                f"warehouse_dir: {location} needs Hadoop's S3 connector, which could not be "
                f"fetched ({exc}); set LAKEHOUSE_MAVEN_REPOSITORY to a Maven mirror, or put "
                f"{', '.join(jar.jar_name for jar in wanted)} in {maven.user_cache_dir()}"
            ) from exc
    if kind != "s3a" and own == ",":
        connector = CONNECTORS.get(kind, f"a Hadoop file system for {kind}://").format(
            hadoop=hadoop
        )
        raise DbtRuntimeError(
            f"warehouse_dir: {location} needs {connector}, which pyspark does not carry: "
            "add it in spark_conf `spark.jars.packages` (or `spark.jars`)"
        )
    return []
