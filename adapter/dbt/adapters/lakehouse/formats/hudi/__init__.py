"""Apache Hudi, the default format: its descriptor (format.py), the bundle
jar every session loads (bundle.py), its timeline (history.py), a change
read's range on it (change_ranges.py), the table
config (table_config.py), a write's hoodie.* settings (write_settings.py),
how writers of one table are kept apart (concurrency.py: the profile's
`concurrency`), the compaction order of merge-on-read tables with CDC
(compaction_order.py) and what a killed writer leaves (recovery.py)."""
