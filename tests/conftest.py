"""Shared by unit and functional tests: nothing here starts Spark."""
