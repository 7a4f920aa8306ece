"""A lake: the folder a profile's tables and catalog live in.

- catalog.py: where a lake keeps its catalog (`folder` or `metastore`);
- metastore.py: which Hive metastore a profile names (no pyspark needed);
- lock.py: one process at a time on an embedded lake;
- metadata.py: what the adapter asks a table's metadata (timeline, commits,
  catalog properties), through the session's SQL.

May import: formats/, processes, statements.
"""
