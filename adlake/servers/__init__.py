"""Servers the warehouse's targets use: `spark_server` (Spark Thrift and
Spark Connect servers with Hudi, the `thrift` and `connect` targets; its
`tls_front` serves TLS for a Connect server with a token), `cluster` (a local
Spark standalone master and workers) and `catalog` (a shared Hive metastore on
a local PostgreSQL server)."""
