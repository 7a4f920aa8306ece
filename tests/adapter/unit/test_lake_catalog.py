"""Which kind of catalog a lake keeps (lake/catalog.py), as the lake's own
folder, the profile and LAKEHOUSE_LAKE_CATALOG say (no Spark)."""

from pathlib import Path

import pytest
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.lake import catalog as lake_catalog
from dbt.adapters.lakehouse.lake.metastore import METASTORE_URL

SHARED = {METASTORE_URL: "jdbc:postgresql://127.0.0.1/metastore"}


def profile(**settings) -> LakehouseCredentials:
    return LakehouseCredentials.from_dict({"method": "session", "schema": "s", **settings})


def lakes(root: Path) -> tuple[Path, Path, Path]:
    """A lake with a Derby catalog, one with a folder catalog, a new one."""
    derby, folder, new = root / "derby", root / "folder", root / "new"
    (derby / "metastore_db").mkdir(parents=True)
    (derby / "metastore_db" / "service.properties").write_text("")
    (folder / "catalog" / "default").mkdir(parents=True)
    (folder / "catalog" / "default" / "_schema.json").write_text("{}")
    return derby, folder, new


def test_a_profile_that_does_not_say_follows_the_lake(tmp_path, monkeypatch):
    monkeypatch.delenv(lake_catalog.ENV_VAR, raising=False)
    derby, folder, new = lakes(tmp_path)
    unset = profile()
    assert unset.lake_catalog is None and lake_catalog.CONF not in unset.spark_conf
    assert lake_catalog.for_lake(derby, unset.spark_conf) == "metastore"
    assert lake_catalog.for_lake(folder, unset.spark_conf) == "folder"
    # A new lake gets a folder; a metastore where javac cannot build its class.
    assert lake_catalog.for_lake(new, unset.spark_conf) == "folder"
    assert lake_catalog.for_lake(new, unset.spark_conf, folder_built=False) == "metastore"
    # A new lake gets the environment's kind; a lake that has one keeps it.
    monkeypatch.setenv(lake_catalog.ENV_VAR, "metastore")
    assert lake_catalog.for_lake(new, unset.spark_conf) == "metastore"
    assert lake_catalog.for_lake(folder, unset.spark_conf) == "folder"
    monkeypatch.setenv(lake_catalog.ENV_VAR, "hive")
    with pytest.raises(DbtRuntimeError, match="LAKEHOUSE_LAKE_CATALOG: 'hive' is not a kind"):
        lake_catalog.for_lake(new, unset.spark_conf)
    assert "lake_catalog" in unset._connection_keys()  # dbt debug shows it


def test_a_profile_that_names_a_kind_gets_it_on_a_new_lake_and_is_refused_on_the_other(
    tmp_path, monkeypatch
):
    monkeypatch.setenv(lake_catalog.ENV_VAR, "metastore")
    derby, folder, new = lakes(tmp_path)
    as_folder = profile(lake_catalog="Folder").spark_conf
    as_metastore = profile(lake_catalog="metastore").spark_conf
    assert lake_catalog.for_lake(new, as_folder) == "folder"
    assert lake_catalog.for_lake(folder, as_folder) == "folder"
    assert lake_catalog.for_lake(new, as_metastore) == "metastore"
    with pytest.raises(
        DbtRuntimeError, match=r"keeps its catalog in .*metastore_db \(lake_catalog: metastore\)"
    ):
        lake_catalog.for_lake(derby, as_folder)
    with pytest.raises(
        DbtRuntimeError, match=r"keeps its catalog in .*catalog \(lake_catalog: folder\)"
    ):
        lake_catalog.for_lake(folder, as_metastore)
    with pytest.raises(DbtRuntimeError, match="'files' is not a kind of lake catalog"):
        profile(lake_catalog="files")


def test_a_shared_metastore_keeps_the_catalog_there(tmp_path, monkeypatch):
    monkeypatch.setenv(lake_catalog.ENV_VAR, "folder")
    assert lake_catalog.for_lake(tmp_path, profile(spark_conf=SHARED).spark_conf) == "metastore"
    with pytest.raises(DbtRuntimeError, match="names a shared metastore"):
        profile(lake_catalog="folder", spark_conf=SHARED)
