"""Delta Lake: its descriptor (format.py), the table config (table_config.py),
a table's versions (history.py), its table services (services.py) and its
change ranges (change_ranges.py)."""
