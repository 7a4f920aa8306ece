"""Apache Hudi, the default format: its descriptor (format.py), the bundle
jar every session loads (bundle.py), its timeline (history.py), its change
reads (change_reads.py; a range on its timeline: change_ranges.py), the table
config (table_config.py, with its Hudi-only parts in settings/), a write's
hoodie.* settings (write_settings.py), how writers of one table are kept
apart (concurrency.py: the profile's `concurrency`), the compaction order of
merge-on-read tables with CDC (compaction_order.py), its lake stats in dbt
docs (catalog_stats.py) and what a killed writer leaves (recovery.py)."""
