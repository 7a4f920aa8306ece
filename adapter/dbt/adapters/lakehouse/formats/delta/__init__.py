"""Delta Lake: its descriptor (format.py), the table config (table_config.py),
a table's versions (history.py), its table services (services.py), its change
reads (change_ranges.py), its lake stats in dbt docs (catalog_stats.py) and
what a killed create leaves (recovery.py)."""
