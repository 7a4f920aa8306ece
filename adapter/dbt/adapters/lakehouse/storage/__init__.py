"""Where the warehouse's tables are kept: a local folder or an object store.

- locations.py: the warehouse's location and its file system's settings;
- probe.py: an object-store warehouse checked once at the session's start;
- connector_jars.py: the jars an object store needs (hadoop-aws, AWS SDK).

May import: formats/ (for fetching jars), processes.
"""
