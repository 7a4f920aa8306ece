"""Data tests scoped to what a run wrote: how a test is scoped (scope.py) and
the queries it runs (queries.py). May import: statements."""
