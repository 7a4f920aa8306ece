"""Apache Hudi: the bundle jar (bundle.py, which also fetches the other jars),
the table config (table_config.py), a write's hoodie.* settings
(write_settings.py), the compaction order of merge-on-read tables with CDC
(compaction_order.py) and what a killed writer leaves (recovery.py)."""
