"""The table formats: one package each (hudi/, iceberg/, delta/), each with
a descriptor (format.py) of the one interface shared code asks
(table_format.py), and the registry of formats (registry.py), which this
package fills: the three, then any another package names by entry point.

Shared by the formats: config_support.py (which config each takes),
change_range.py (a change read's range, whatever the format),
leftovers.py (what a killed create leaves, in the words every format uses),
merge_table.py and merge_commits.py (what the formats written by SQL MERGE
share: their configs, their commits' records and triggers).

May import: relation_configs/, maven.py, processes, statements.
"""

import importlib.metadata

from dbt.adapters.lakehouse.formats import registry
from dbt.adapters.lakehouse.formats.delta.format import DELTA
from dbt.adapters.lakehouse.formats.hudi.format import HUDI
from dbt.adapters.lakehouse.formats.iceberg.format import ICEBERG

# Hudi first: the default format (registry.DEFAULT_FORMAT).
for _fmt in (HUDI, ICEBERG, DELTA):
    registry.register(_fmt)

# A format from another package: an entry point of this group names its
# TableFormat (`parquet = my_package.format:PARQUET` in its
# entry_points.txt), and its macros (lakehouse_<format>__*) come with the
# project or a dbt package. Found once, as the adapter loads (about 5 ms).
for _entry in importlib.metadata.entry_points(group=registry.ENTRY_POINT_GROUP):
    registry.register(_entry.load())
