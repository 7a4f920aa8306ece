"""The adlake warehouse's toolkit: what feeds, runs and measures the dbt project
at the repository's root.

- `adlake.generator`: deterministic, deliberately messy source data and the
  figures a correct warehouse must show (`python -m adlake.generator`);
- `adlake.landing`: lands a generated batch the way a producer should
  (`python -m adlake.landing`);
- `adlake.runner`: the warehouse built batch by batch (`warehouse`, what
  `make run` runs), continuous mode (`continuous`), and on every execution
  target, compared (`targets`);
- `adlake.servers`: Spark Thrift and Connect servers with Hudi
  (`spark_server`, with `tls_front`), a local standalone cluster (`cluster`)
  and a shared Hive catalog on PostgreSQL (`catalog`);
- `adlake.bench`: benchmarks, the soak and the batch profiler;
- `adlake.timeline`: a Hudi table's instants, read from its timeline files.

Every runnable module has a `main()` and runs as `python -m adlake.<module>`;
pyproject.toml also names them as console scripts (`adlake-run`, ...). Each
declares its own options: their argparse calls look alike, but the options
differ in default and meaning (--batches: the batches to build, the measured
ones, the last of which is profiled...), so none is shared; what is (dbt's
arguments for a work folder, --full-checks-every's check) is in
`adlake.runner.warehouse`.
`tools/setup.sh` installs the package editable, so the toolkit is imported
from this checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

# The toolkit runs dbt in its own process and then reads the lake through the
# Spark session dbt started there (a runner's summary, a benchmark's checks):
# that needs the adapter's in-process engine, not the lake's warm server
# (warm start, on by default for a dbt command run by hand). The processes the
# toolkit starts inherit it; the warm-start benchmark sets its own.
os.environ.setdefault("LAKEHOUSE_WARM_START", "0")

# The repository: the dbt project, its profiles, .cache (the Hudi bundle,
# catalog files) and .lake. The package is installed editable from it.
ROOT = Path(__file__).resolve().parents[1]
