"""Apache Hudi as a TableFormat (formats/table_format.py): the default
format. Its bundle is in every session (bundle.py: the embedded session
loads it whatever the project's formats), so it adds no jars here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from dbt.adapters.lakehouse.formats.change_range import ChangeRead, ReadRequest
from dbt.adapters.lakehouse.formats.hudi import catalog_stats, change_reads, history, recovery
from dbt.adapters.lakehouse.formats.hudi.settings import write_defaults
from dbt.adapters.lakehouse.formats.hudi.table_config import HudiTableConfig
from dbt.adapters.lakehouse.formats.leftovers import Found, ListPaths
from dbt.adapters.lakehouse.formats.table_format import (
    AddStat,
    Ask,
    CatalogHistory,
    Lake,
    NotThisFormat,
    Sql,
    TableFormat,
)

T = TypeVar("T")


class Hudi(TableFormat):
    name = "hudi"
    title = "Hudi"
    readers = {
        "hudi-rs (`hudi` 0.5 on PyPI)": "copy-on-write and merge-on-read tables, compacted "
        "and cleaned: their latest snapshot",
    }

    configs = {
        "unique_key": "the record key: upserts, deletes",
        "table_type": "`cow` / `mor`: Hudi's table type",
        "precombine_key": "Hudi's ordering field: the larger value wins in any arrival order",
        "partition_by": "partition path fields",
        "index": "Hudi's index (`bloom`, `simple`, `bucket` with `buckets`, ...)",
        "delete_condition": "batch rows matching it delete their key",
        "tblproperties": "table properties",
        "hudi_options": "any `hoodie.*` setting, for the table and its writes",
        "options": "dbt-spark's `options`, mapped onto the typed configs",
        "compaction": "when and how delta logs are compacted (`mor`)",
        "cleaning": "how many commits' files are kept (unset: Hudi's 10 commits, after each write)",
        "file_sizing": "base and log file sizes",
        "skip_unchanged": "no write when nothing it reads has a new commit",
        "location_root": "the table's folder",
        "clustered_by": "refused: Hudi's bucket index does that job (`index: {type: bucket}`)",
        "buckets": "refused: Hudi's bucket index does that job (`index: {type: bucket}`)",
    }

    def table_config(
        self, model: str, config: Mapping[str, Any], target_settings: Mapping[str, str]
    ) -> HudiTableConfig:
        """With the write defaults, each at the target's value where it sets one."""
        return HudiTableConfig.from_model_config(
            model, config, write_defaults.for_target(target_settings)
        )

    def latest_position(self, ask: Ask, table: str) -> str | None:
        """The table's latest instant."""
        latest = self._of_hudi(table, lambda: history.latest_commit(ask, table))
        return latest.instant if latest is not None else None

    def recorded(self, ask: Ask, table: str, key: str) -> str | None:
        """In the extra metadata of the table's commits."""
        return self._of_hudi(table, lambda: history.recorded(ask, table, key))

    def change_history(self, lake: Lake, request: ReadRequest) -> change_reads.HudiChanges:
        """The table's active timeline (and its cleans, for a cdc read)."""
        for_cdc = request.mode == "cdc"
        timeline = self._of_hudi(
            request.upstream, lambda: change_reads.timeline(lake.ask, request.upstream, for_cdc)
        )
        return change_reads.HudiChanges(timeline)

    def change_source(self, read: ChangeRead, sql: Sql) -> str:
        return change_reads.change_source(read, sql)

    def catalog_stats(self, lake: Lake, table: str, location: str, add: AddStat) -> CatalogHistory:
        """What its hoodie.properties, timeline and files say."""
        return catalog_stats.catalog_stats(lake.ask, table, location, add)

    def leftover_in_folder(
        self, names: list[str], base: str, list_paths: ListPaths
    ) -> Found | None:
        return recovery.folder_leftover(names, base, list_paths)

    def _of_hudi(self, table: str, read: Callable[[], T]) -> T:
        """`read` of a table's timeline; NotThisFormat for a table not Hudi's."""
        try:
            return read()
        except Exception as exc:  # Spark's own exception on the embedded session
            if history.is_not_hudi(exc):
                raise NotThisFormat(table, self) from exc
            raise


HUDI = Hudi()
