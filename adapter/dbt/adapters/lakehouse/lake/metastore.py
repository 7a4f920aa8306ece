"""Which Hive metastore a profile's spark_conf names: the lake's own Derby
database, which one JVM opens at a time, or a shared one. Apart from the
embedded session so that reading a profile (credentials) needs no pyspark."""

from __future__ import annotations

METASTORE_URL = "spark.hadoop.javax.jdo.option.ConnectionURL"


def shares_catalog(spark_conf: dict[str, str]) -> bool:
    """True when the profile points the catalog at a metastore database other
    than the lake's own Derby one (PostgreSQL, MySQL, ...), which several Spark
    applications can use at once."""
    url = spark_conf.get(METASTORE_URL, "")
    return bool(url) and not url.startswith("jdbc:derby:")
