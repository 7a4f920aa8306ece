"""The table formats: one package each (hudi/, iceberg/, delta/), and the
registry of what a session loads for them (registry.py).

A format's package holds its table config, its history, its table services,
its change ranges and, for Hudi, its bundle and write settings.

May import: relation_configs/, change_reads/ranges.py (the vocabulary of a
change read), processes, statements.
"""
