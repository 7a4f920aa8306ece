"""dbt's adapter classes on Delta and on Iceberg tables (`+file_format: delta`
or `iceberg` on models, seeds and snapshots), as a user of either runs them,
in a session that holds all three formats.

The rest of this folder runs on the worker's embedded session, which has only
Hudi's jars: a JVM's classpath is fixed when it starts. So these classes run
with warm start on: dbt still runs in this process, and its Spark is one
warm server on a lake of this file's own, with Iceberg's and Delta's jars
(the profile's `table_formats`), started by a `dbt debug` command as a user
starts one (a program calling dbt in-process starts none of its own) and
stopped at the end by its pid. One server for every
class keeps the file's cost to the classes' own work. Which classes, and
why: docs/development.md, "The same classes on Delta and Iceberg".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_incremental import BaseIncremental
from dbt.tests.adapter.basic.test_snapshot_timestamp import BaseSnapshotTimestamp
from dbt.tests.adapter.incremental import test_incremental_unique_id as unique_id
from dbt.tests.adapter.incremental.test_incremental_merge_exclude_columns import (
    BaseMergeExcludeColumns,
)
from dbt.tests.adapter.incremental.test_incremental_on_schema_change import (
    BaseIncrementalOnSchemaChange,
)
from dbt.tests.util import run_dbt

from dbt.adapters.lakehouse.credentials import WARM_START_ENV_VAR
from dbt.adapters.lakehouse.warm import state as warm_state
from tests.adapter.dbt_suite import test_incremental
from tests.dbt_harness import embedded_target

FORMATS = ("iceberg", "delta")


def formats_target(lake: Path) -> dict:
    return embedded_target(lake) | {
        "table_formats": list(FORMATS),
        "master": "local[2]",
        "warm_idle_timeout": 600,
    }


@pytest.fixture(scope="module")
def formats_lake(tmp_path_factory):
    """The lake of this file's warm server, started by the `dbt` command
    with the classes' profile; the server stopped by its pid at the end."""
    lake = tmp_path_factory.mktemp("formats_suite_lake")
    before = os.environ.get(WARM_START_ENV_VAR)
    os.environ[WARM_START_ENV_VAR] = "1"
    try:
        start_server(lake, tmp_path_factory.mktemp("formats_suite_server"))
        yield lake
    finally:
        if before is None:
            os.environ.pop(WARM_START_ENV_VAR, None)
        else:
            os.environ[WARM_START_ENV_VAR] = before
        state = warm_state.read_state(lake)
        if state is not None:
            warm_state.terminate(state, timeout=20)


def start_server(lake: Path, project: Path) -> None:
    target = formats_target(lake) | {"schema": "formats_server"}
    (project / "dbt_project.yml").write_text(
        yaml.safe_dump({"name": "server", "version": "1.0", "profile": "server"})
    )
    (project / "profiles.yml").write_text(
        yaml.safe_dump({"server": {"target": "dev", "outputs": {"dev": target}}})
    )
    dbt = Path(sys.executable).parent / "dbt"
    where = ["--project-dir", str(project), "--profiles-dir", str(project)]
    debug = subprocess.run([str(dbt), "debug", *where], capture_output=True, text=True)
    state = warm_state.read_state(lake)
    assert state is not None and warm_state.usable(state), debug.stdout + debug.stderr


@pytest.fixture(scope="class")
def dbt_profile_target(formats_lake):
    return formats_target(formats_lake)


class OnFormat:
    """The class's models, seeds and snapshots in the format it names, over
    whatever project config the dbt class (or this suite's subclass of it)
    sets."""

    file_format: str

    @pytest.fixture(scope="class")
    def project_config_update(self):
        after = type(self).__mro__[type(self).__mro__.index(OnFormat) + 1 :]
        parent = next(
            (
                k.__dict__["project_config_update"]
                for k in after
                if "project_config_update" in k.__dict__
            ),
            None,
        )
        config = parent.__wrapped__(self) if parent is not None else {}
        for kind in ("models", "seeds", "snapshots"):
            config.setdefault(kind, {})["+file_format"] = self.file_format
        return config


class TestSimpleMaterializationsDelta(OnFormat, BaseSimpleMaterializations):
    file_format = "delta"


class TestIncrementalDelta(OnFormat, BaseIncremental):
    file_format = "delta"


class TestIncrementalUniqueKeyDelta(
    OnFormat, test_incremental.HudiUniqueKey, unique_id.SubBaseIncrementalUniqueKey
):
    """A Delta table's first load keeps one row per key, as a Hudi table's
    does (HudiUniqueKey says what that changes): one key, a compound key, a
    key whose first load has a duplicate."""

    file_format = "delta"
    test__one_unique_key = unique_id.BaseIncrementalUniqueKey.test__one_unique_key
    test__trinary_unique_key_list = unique_id.BaseIncrementalUniqueKey.test__trinary_unique_key_list
    test__unary_unique_key_list = (
        test_incremental.TestIncrementalUniqueKey.test__unary_unique_key_list
    )


class TestIncrementalOnSchemaChangeDelta(OnFormat, BaseIncrementalOnSchemaChange):
    """sync_all_columns would drop a column, which Delta does only under
    column mapping, and that blocks a Delta table's rebuilds and its change
    feed across the drop: the drop is refused, naming the model and the two
    ways on, and the full refresh it names builds the table. (Adding columns
    is a plain ALTER on every format: the Hudi class runs dbt's cases.)"""

    file_format = "delta"
    test_run_incremental_ignore = None
    test_run_incremental_fail_on_schema_change = None
    test_run_incremental_append_new_columns = None
    test_run_incremental_sync_all_columns = None

    def test_a_column_drop_is_refused_and_a_full_refresh_builds(self, project):
        select = ["--select", "model_a incremental_sync_all_columns"]
        run_dbt(["run", *select])
        refused = run_dbt(["run", *select], expect_pass=False)
        [message] = [r.message for r in refused.results if r.node.name != "model_a"]
        assert "Model incremental_sync_all_columns (file_format: delta" in message, message
        assert "--full-refresh" in message and "append_new_columns" in message, message
        run_dbt(["run", *select, "--full-refresh"])
        # The model's first build: the rows of model_a up to id 3.
        built, expected = (
            project.run_sql(f"select count(*) from {project.test_schema}.{name}", fetch="one")[0]
            for name in ("incremental_sync_all_columns", "model_a where id <= 3")
        )
        assert built == expected == 3


class TestMergeExcludeColumnsDelta(OnFormat, BaseMergeExcludeColumns):
    file_format = "delta"


class TestIncrementalPredicatesDelta(OnFormat, test_incremental.TestIncrementalPredicates):
    file_format = "delta"


class TestSnapshotTimestampDelta(OnFormat, BaseSnapshotTimestamp):
    file_format = "delta"


# --- the same classes on Iceberg ----------------------------------------------------


class TestSimpleMaterializationsIceberg(OnFormat, BaseSimpleMaterializations):
    """(Its `swappable` model switches between view and table: an Iceberg
    table and a view under one name of the session catalog.)"""

    file_format = "iceberg"


class TestIncrementalIceberg(OnFormat, BaseIncremental):
    file_format = "iceberg"


class TestIncrementalUniqueKeyIceberg(TestIncrementalUniqueKeyDelta):
    file_format = "iceberg"


class TestIncrementalOnSchemaChangeIceberg(OnFormat, BaseIncrementalOnSchemaChange):
    """Iceberg drops a column in place: dbt's sync_all_columns case passes as
    written. (Adding columns is a plain ALTER on every format: the Hudi class
    runs dbt's other cases.)"""

    file_format = "iceberg"
    test_run_incremental_ignore = None
    test_run_incremental_fail_on_schema_change = None
    test_run_incremental_append_new_columns = None


class TestMergeExcludeColumnsIceberg(OnFormat, BaseMergeExcludeColumns):
    file_format = "iceberg"


class TestIncrementalPredicatesIceberg(OnFormat, test_incremental.TestIncrementalPredicates):
    file_format = "iceberg"


class TestSnapshotTimestampIceberg(OnFormat, BaseSnapshotTimestamp):
    file_format = "iceberg"


class TestModelMovesBetweenFormats:
    """A model moved to another format by its file_format keeps its name
    (schema.table in the session catalog, whatever the format): an
    incremental run refuses, naming --full-refresh; the full refresh rebuilds
    the table in the new format, and the old format's files go."""

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "moved.sql": """
{{ config(materialized='incremental', file_format=var('fmt'), unique_key='id') }}
select id, '{{ var('fmt') }}' as fmt from (values (1), (2)) as t(id)
"""
        }

    def test_a_full_refresh_moves_it_and_an_incremental_run_refuses(self, project, formats_lake):
        table = f"{project.test_schema}.moved"
        iceberg_folder = formats_lake / "warehouse" / "iceberg" / project.test_schema / "moved"

        def run(fmt, *extra, expect_pass=True):
            return run_dbt(["run", "--vars", f"fmt: {fmt}", *extra], expect_pass=expect_pass)

        def stored():
            described = project.run_sql(f"describe table extended {table}", fetch="all")
            rows = project.run_sql(f"select id, fmt from {table} order by id", fetch="all")
            provider = {r[0]: r[1] for r in described}["Provider"]
            return provider, [tuple(r) for r in rows]

        run("hudi")
        [refused] = run("iceberg", expect_pass=False).results
        assert f"its table {table} is a hudi table, and file_format is iceberg" in refused.message
        assert "--full-refresh" in refused.message, refused.message
        assert stored() == ("hudi", [(1, "hudi"), (2, "hudi")])

        run("iceberg", "--full-refresh")
        assert stored() == ("iceberg", [(1, "iceberg"), (2, "iceberg")])
        assert (iceberg_folder / "metadata").is_dir()
        run("iceberg")  # (an incremental run of the moved model merges as usual)

        run("delta", "--full-refresh")
        assert stored() == ("delta", [(1, "delta"), (2, "delta")])
        assert not iceberg_folder.exists(), "the Iceberg table's files"

        run("hudi", "--full-refresh")
        assert stored() == ("hudi", [(1, "hudi"), (2, "hudi")])


class TestDeltaLocationRoot:
    """`location_root` on a Delta model: its table is an external table in
    <location_root>/<alias>, merged in place run after run. Given a new
    location_root, an incremental run refuses, naming both folders and
    --full-refresh; the full refresh builds the table there and the old
    folder keeps its files."""

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "placed.sql": """
{{ config(materialized='incremental', file_format='delta', unique_key='id',
          location_root=var('root')) }}
select id, {{ var('v') }} as v from (values (1), (2)) as t(id)
"""
        }

    def test_the_table_lives_under_location_root_and_moves_by_a_full_refresh(self, project):
        first, second = (Path(project.project_root) / name for name in ("first", "second"))
        table = f"{project.test_schema}.placed"

        def run(root, v, *extra, expect_pass=True):
            return run_dbt(
                ["run", "--vars", f"{{root: '{root}', v: {v}}}", *extra], expect_pass=expect_pass
            )

        def state():
            [detail] = project.run_sql(f"describe detail {table}", fetch="all")
            rows = project.run_sql(f"select id, v from {table} order by id", fetch="all")
            return detail[4], [tuple(r) for r in rows]  # location, rows

        run(first, 1)
        run(first, 2)
        assert state() == (f"file:{first}/placed", [(1, 2), (2, 2)])
        operations = project.run_sql(f"describe history {table}", fetch="all")
        assert sorted((r[0], r[4]) for r in operations)[-1] == (1, "MERGE")
        assert (first / "placed" / "_delta_log").is_dir()

        [refused] = run(second, 3, expect_pass=False).results
        assert f"its table is at file:{first}/placed" in refused.message, refused.message
        assert f"location_root puts it at {second}/placed" in refused.message
        assert "--full-refresh" in refused.message
        assert state() == (f"file:{first}/placed", [(1, 2), (2, 2)])

        run(second, 3, "--full-refresh")
        assert state() == (f"file:{second}/placed", [(1, 3), (2, 3)])
        assert list((first / "placed" / "_delta_log").glob("*.json")), "the old folder's files"
