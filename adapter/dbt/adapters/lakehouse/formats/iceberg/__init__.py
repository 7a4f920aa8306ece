"""Apache Iceberg: its descriptor (format.py), the table config
(table_config.py), a table's snapshots (history.py), its table services
(services.py) and its change ranges (change_ranges.py)."""
