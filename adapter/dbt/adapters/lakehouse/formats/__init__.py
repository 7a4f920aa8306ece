"""The table formats: one package each (hudi/, iceberg/, delta/), each with
a descriptor (format.py) of the one interface shared code asks
(table_format.py), and the registry of formats (registry.py).

Shared by the formats: config_support.py (which config each takes),
merge_table.py and merge_commits.py (what the formats written by SQL MERGE
share: their configs, their commits' records and triggers).

May import: relation_configs/, change_reads/ranges.py (the vocabulary of a
change read), maven.py, processes, statements.
"""
