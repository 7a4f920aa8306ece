"""`python -m adlake.servers.catalog ...`: the catalog's command line (cli)."""

import sys

from adlake.servers.catalog.cli import main

sys.exit(main())
