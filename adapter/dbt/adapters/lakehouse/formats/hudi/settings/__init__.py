"""The parts of a Hudi model's config that only Hudi has, each parsed from
the model's configs and rendered as hoodie.* settings (table_config.py
holds them with the shared ones of relation_configs/): its index, its file
sizes, dbt-spark's `options` mapped onto the typed configs, and the write
defaults the adapter gives every write."""
