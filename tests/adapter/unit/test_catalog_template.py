"""Which catalog databases a new lake's copy of the template is for
(session/catalog_template.py); the copy itself is tested on real lakes in
functional/targets/test_several_lakes_per_process.py."""

from __future__ import annotations

from pathlib import Path

from dbt.adapters.lakehouse.lake.metastore import METASTORE_URL
from dbt.adapters.lakehouse.session import catalog_template
from dbt.adapters.lakehouse.session.embedded import hudi_session_conf


def test_the_lakes_own_catalog_is_new_until_its_folder_exists(tmp_path):
    url = hudi_session_conf(tmp_path, Path("hudi.jar"), "local[2]")[METASTORE_URL]
    assert catalog_template.new_database(url) == tmp_path / "metastore_db"
    (tmp_path / "metastore_db").mkdir()
    assert catalog_template.new_database(url) is None


def test_only_a_derby_database_derby_is_asked_to_create_gets_one(tmp_path):
    folder = tmp_path / "catalog"
    assert catalog_template.new_database(f"jdbc:derby:{folder};create=true") == folder
    assert catalog_template.new_database(f"jdbc:derby:;databaseName={folder}") is None
    assert (
        catalog_template.new_database("jdbc:derby:;databaseName=metastore_db;create=true") is None
    )
    assert catalog_template.new_database("jdbc:postgresql://127.0.0.1/hive") is None
