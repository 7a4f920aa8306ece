"""dbt docs: the catalog of the project's relations, with lake stats
(catalog.py). May import: change_reads/, lake/, formats/, statements."""
