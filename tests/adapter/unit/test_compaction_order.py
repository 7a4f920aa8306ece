"""Which tables run their pending compactions before a write (no Spark)."""

import pytest

from dbt.adapters.lakehouse.formats.hudi.compaction_order import compacts_before_writing


@pytest.mark.parametrize(
    "properties,expected",
    [
        ({"type": "mor", "hoodie.table.cdc.enabled": "true"}, True),
        ({"hoodie.table.type": "MERGE_ON_READ", "hoodie.table.cdc.enabled": "TRUE"}, True),
        ({"type": "mor"}, False),  # no CDC: other reads handle such ranges
        ({"type": "mor", "hoodie.table.cdc.enabled": "false"}, False),
        ({"type": "cow", "hoodie.table.cdc.enabled": "true"}, False),  # no compaction
        ({}, False),
    ],
)
def test_only_merge_on_read_tables_with_cdc_compact_before_writing(properties, expected):
    assert compacts_before_writing(properties) is expected
