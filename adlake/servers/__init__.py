"""Servers the warehouse's targets use: `spark_server` (a Spark Thrift server
with Hudi, the `thrift` target) and `catalog` (a shared Hive metastore on a
local PostgreSQL server)."""
