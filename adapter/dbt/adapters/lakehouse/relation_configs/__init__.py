"""A model's table settings the formats share, one small class per kind
(layout, compaction, cleaning, strategies), parsed and checked the same way
for every format; each format's own table config (formats/<format>/
table_config.py) composes the ones it takes, with its own (Hudi's index,
file sizes and dbt-spark options: formats/hudi/settings/). Imports nothing
above it but statements."""
