"""Which config works on which table format: one table that the config
validation reads (a config that means nothing for a model's format is an
error naming the model, the key, the format and what to use instead) and the
docs render (adapter/README.md's "Configs by table format", checked by a unit
test).

A cell says what the config does on that format; None: the format refuses
it, and `instead` says what to use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dbt.adapters.lakehouse.relation_configs.errors import LakeConfigError


@dataclass(frozen=True)
class Support:
    key: str
    hudi: str
    iceberg: str | None
    delta: str | None
    # Per format it refuses: what to use instead, or why not.
    instead: dict[str, str] = field(default_factory=dict)


CONFIGS: tuple[Support, ...] = (
    Support(
        "unique_key",
        hudi="the record key: upserts, deletes",
        iceberg="the MERGE's key: upserts, deletes (kept in the table property lakehouse.unique_key)",
        delta="the MERGE's key: upserts, deletes (kept in the table property lakehouse.unique_key)",
    ),
    Support(
        "table_type",
        hudi="`cow` / `mor`: Hudi's table type",
        iceberg="`cow` / `mor`: `write.update.mode`, `write.delete.mode`, `write.merge.mode` "
        "copy-on-write / merge-on-read (position delete files)",
        delta="`cow` / `mor`: deletion vectors off / on (`delta.enableDeletionVectors`)",
    ),
    Support(
        "precombine_key",
        hudi="Hudi's ordering field: the larger value wins in any arrival order",
        iceberg="the batch keeps the largest value per key, and the MERGE updates or deletes "
        "a stored row only when the incoming value is not smaller",
        delta="as on Iceberg: the batch keeps the largest value per key, the MERGE "
        "updates or deletes a stored row only when the incoming value is not smaller",
    ),
    Support(
        "partition_by",
        hudi="partition path fields",
        iceberg="identity partition fields",
        delta="partition columns",
    ),
    Support(
        "index",
        hudi="Hudi's index (`bloom`, `simple`, `bucket` with `buckets`, ...)",
        iceberg="`{type: bucket, buckets: N}` only: a `bucket(N, unique_key)` partition field",
        delta=None,
        instead={
            "iceberg": "Iceberg finds rows by its metadata, not an index: only "
            "{type: bucket, buckets: N} applies (a bucket partition field on the unique_key).",
            "delta": "Delta has no bucket partitioning and finds rows by its file statistics: "
            "remove index (partition_by partitions the table).",
        },
    ),
    Support(
        "delete_condition",
        hudi="batch rows matching it delete their key",
        iceberg="batch rows matching it delete their key (a MERGE's delete)",
        delta="batch rows matching it delete their key (a MERGE's delete)",
    ),
    Support(
        "tblproperties",
        hudi="table properties",
        iceberg="table properties (Iceberg's own: `write.target-file-size-bytes`, ...); "
        "not the `write.*.mode` that table_type sets",
        delta="table properties (Delta's own: `delta.targetFileSize`, ...); not the "
        "deletion vectors table_type sets, nor the change data feed change reads need",
    ),
    Support(
        "hudi_options",
        hudi="any `hoodie.*` setting, for the table and its writes",
        iceberg=None,
        delta=None,
        instead={
            "iceberg": "Set Iceberg's table properties in tblproperties.",
            "delta": "Set Delta's table properties in tblproperties.",
        },
    ),
    Support(
        "options",
        hudi="dbt-spark's `options`, mapped onto the typed configs",
        iceberg=None,
        delta=None,
        instead={
            "iceberg": "Use the typed configs, or Iceberg's table properties in tblproperties.",
            "delta": "Use the typed configs, or Delta's table properties in tblproperties.",
        },
    ),
    Support(
        "compaction",
        hudi="when and how delta logs are compacted (`mor`)",
        iceberg="when data files with delete files are rewritten (`mor`): `rewrite_data_files` "
        "then `rewrite_position_delete_files`, the trigger counting snapshots since the last "
        "rewrite; `mode: schedule` leaves it to `lake_compact_scheduled`",
        delta="when files with deletion vectors are rewritten (`mor`): `OPTIMIZE` then "
        "`REORG TABLE ... APPLY (PURGE)`, the trigger counting versions since the last of "
        "either; `mode: schedule` leaves it to `lake_compact_scheduled`",
    ),
    Support(
        "cleaning",
        hudi="how many commits' files are kept (unset: Hudi's 10 commits, after each write)",
        iceberg="`expire_snapshots` after each write, keeping the latest `retain` snapshots "
        "(unset: 10) or those of the last `retain` hours; `keep_latest_file_versions` refused",
        delta="`VACUUM` after each write, keeping the files of the latest `retain` versions "
        "(unset: 10) or of the last `retain` hours; `keep_latest_file_versions` refused",
    ),
    Support(
        "file_sizing",
        hudi="base and log file sizes",
        iceberg=None,
        delta=None,
        instead={
            "iceberg": "Set Iceberg's write.target-file-size-bytes in tblproperties.",
            "delta": "Set Delta's delta.targetFileSize in tblproperties.",
        },
    ),
    Support(
        "skip_unchanged",
        hudi="no write when nothing it reads has a new commit",
        iceberg="no write when nothing it reads has a new commit or snapshot",
        delta="no write when nothing it reads has a new commit, snapshot or version",
    ),
    Support(
        "location_root",
        hudi="the table's folder",
        iceberg=None,
        delta="the table's folder (an external Delta table); moved by a full refresh",
        instead={
            "iceberg": "The iceberg catalog places its tables under the warehouse's iceberg/ "
            "folder: remove location_root.",
        },
    ),
    Support(
        "clustered_by",
        hudi="refused: Hudi's bucket index does that job (`index: {type: bucket}`)",
        iceberg=None,
        delta=None,
        instead={
            "iceberg": "Set index: {type: bucket, buckets: N} with a unique_key.",
            "delta": "Delta has no bucketing: use partition_by.",
        },
    ),
    Support(
        "buckets",
        hudi="refused: Hudi's bucket index does that job (`index: {type: bucket}`)",
        iceberg=None,
        delta=None,
        instead={
            "iceberg": "Set index: {type: bucket, buckets: N} with a unique_key.",
            "delta": "Delta has no bucketing: use partition_by.",
        },
    ),
)

BY_KEY = {s.key: s for s in CONFIGS}

# The incremental strategies each format runs besides Hudi's (all of them).
STRATEGIES: dict[str, dict[str, str]] = {
    "iceberg": {
        "append": "`INSERT INTO`",
        "upsert": "`MERGE INTO` on the unique_key",
        "merge": "`MERGE INTO` on the unique_key (without one: `append`)",
        "insert_overwrite": "`INSERT OVERWRITE` of the partitions the batch writes",
        "microbatch": "one `MERGE INTO` per batch that replaces its event_time window "
        "(`WHEN NOT MATCHED BY SOURCE` deletes the window's other rows): one snapshot",
    },
}
# Delta runs the same statements (one commit each).
STRATEGIES["delta"] = dict(STRATEGIES["iceberg"])


def _given(value: Any) -> bool:
    return value is not None and value != {} and value != [] and value != ""


def check(model: str, fmt: str, config: Mapping[str, Any]) -> None:
    """Refuse each config the model sets that `fmt` does not take."""
    for support in CONFIGS:
        value = config.get(support.key)
        if _given(value) and getattr(support, fmt) is None:
            raise LakeConfigError(
                model,
                support.key,
                value,
                f"It does nothing for file_format '{fmt}'. {support.instead[fmt]}",
            )


def check_strategy(model: str, fmt: str, strategy: str) -> None:
    allowed = STRATEGIES[fmt]
    if strategy not in allowed:
        raise LakeConfigError(
            model,
            "incremental_strategy",
            strategy,
            f"On file_format '{fmt}' use one of: {', '.join(allowed)}.",
        )


def markdown_table() -> str:
    """The docs' table of configs by format (adapter/README.md)."""
    others = ("iceberg", "delta")
    lines = [
        "| config | `hudi` | " + " | ".join(f"`{f}`" for f in others) + " |",
        "|---|---|" + "---|" * len(others),
    ]
    for s in CONFIGS:
        cells = [
            getattr(s, f) if getattr(s, f) is not None else f"refused. {s.instead[f]}"
            for f in others
        ]
        lines.append(f"| `{s.key}` | {s.hudi} | " + " | ".join(cells) + " |")
    for name, how in STRATEGIES["iceberg"].items():
        cells = [how] + [
            "as on Iceberg"
            if STRATEGIES[f].get(name) == how
            else STRATEGIES[f].get(name, "refused")
            for f in others[1:]
        ]
        lines.append(f"| `incremental_strategy: {name}` | yes | " + " | ".join(cells) + " |")
    return "\n".join(lines)
