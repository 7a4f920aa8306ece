"""Apache Hudi as a TableFormat (formats/table_format.py): the default
format. Its bundle is in every session (bundle.py: the embedded session
loads it whatever the project's formats), so it adds no jars here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from dbt.adapters.lakehouse.formats.hudi import history
from dbt.adapters.lakehouse.formats.table_format import Ask, NotThisFormat, TableFormat

T = TypeVar("T")


class Hudi(TableFormat):
    name = "hudi"
    title = "Hudi"

    def latest_position(self, ask: Ask, table: str) -> str | None:
        """The table's latest instant."""
        latest = self._of_hudi(table, lambda: history.latest_commit(ask, table))
        return latest.instant if latest is not None else None

    def recorded(self, ask: Ask, table: str, key: str) -> str | None:
        """In the extra metadata of the table's commits."""
        return self._of_hudi(table, lambda: history.recorded(ask, table, key))

    def _of_hudi(self, table: str, read: Callable[[], T]) -> T:
        """`read` of a table's timeline; NotThisFormat for a table not Hudi's."""
        try:
            return read()
        except Exception as exc:  # Spark's own exception on the embedded session
            if history.is_not_hudi(exc):
                raise NotThisFormat(table, self) from exc
            raise


HUDI = Hudi()
