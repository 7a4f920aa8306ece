"""What happens around a model's write, whatever its format.

- written_tables.py: which tables this invocation wrote, since which commit;
- unchanged_builds.py: a `table` model skipped when nothing it reads changed;
- scratch_tables.py: where a write stages its batch, or a read its range;
- memory_staging.py: a write's staged batch held in memory;
- killed_creates.py: what a run killed while it created a table left behind.

May import: change_reads/, data_tests/, lake/, session/, formats/, statements.
"""
