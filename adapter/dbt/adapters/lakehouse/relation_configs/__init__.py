"""A model's table settings, one small class per kind (layout, compaction,
cleaning, file sizing, index, merge, spark options), parsed and checked the
same way for every format; each format's own table config (formats/<format>/
table_config.py) composes the ones it takes. Imports nothing above it but
statements."""
