"""Table type, record key, precombine key and partitioning land on the Hudi table."""

import yaml

from dbt.adapters.lakehouse.formats.hudi import recovery
from tests.dbt_harness import spark


def parquet_codec(path) -> str:
    """The compression codec of a parquet file's first column chunk, read from
    its footer by the parquet library Spark carries."""
    jvm = spark()._jvm
    footer = jvm.org.apache.parquet.hadoop.ParquetFileReader.readFooter(
        spark()._jsc.hadoopConfiguration(), jvm.org.apache.hadoop.fs.Path(str(path))
    )
    return footer.getBlocks().get(0).getColumns().get(0).getCodec().name()


EVENTS_MODEL = """
    {{{{ config(
        materialized='incremental',
        table_type='{table_type}',
        unique_key='event_id',
        precombine_key='version',
        partition_by='event_date',
        incremental_strategy='{strategy}',
    ) }}}}
    select * from (values
        ('e1', 1, 100, date'2026-11-20'),
        ('e2', 1, 200, date'2026-11-20'),
        ('e3', 1, 300, date'2026-11-21')
    ) as t(event_id, version, cost_micros, event_date)
"""


def test_mor_table_carries_its_settings_in_hoodie_properties(project):
    project.model("events", EVENTS_MODEL.format(table_type="mor", strategy="upsert"))
    project.dbt("run")

    props = project.hoodie_properties("events")
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.recordkey.fields"] == "event_id"
    assert props["hoodie.table.ordering.fields"] == "version"
    assert props["hoodie.table.partition.fields"] == "event_date"
    # A MOR write completes as a deltacommit on the timeline.
    assert [action for _, _, action in project.completed_instants("events")] == ["deltacommit"]
    partitions = sorted(p.name for p in project.table_dir("events").glob("event_date=*"))
    assert partitions == ["event_date=2026-11-20", "event_date=2026-11-21"]
    assert project.scalar("select sum(cost_micros) from {schema}.events") == 600


def test_cow_is_the_default_table_type(project):
    project.model(
        "plain",
        """
        {{ config(materialized='incremental', unique_key='id') }}
        select 1 as id, 'a' as v
        """,
    )
    project.dbt("run")
    props = project.hoodie_properties("plain")
    assert props["hoodie.table.type"] == "COPY_ON_WRITE"
    assert "hoodie.table.ordering.fields" not in props
    assert [a for _, _, a in project.completed_instants("plain")] == ["commit"]


def test_small_commit_defaults_are_on_the_table_and_hudi_options_override_them(project):
    """The adapter's defaults (write_defaults.py): no metadata table, no Hive
    sync, direct markers. Before each write the adapter reads the metadata
    table's timeline (crash recovery): a table without one takes writes too.
    A target's server_side_parameters beat the defaults for every model, and
    a model's hudi_options beat the target's."""
    model = """
        {{{{ config(materialized='incremental', unique_key='id'{options}) }}}}
        select id, {{{{ var('run') }}}} as v from (values (1), (2)) as t(id)
    """
    project.model("defaults", model.format(options=""))
    project.model(
        "with_metadata",
        model.format(
            options=", hudi_options={'hoodie.metadata.enable': true, "
            "'hoodie.parquet.compression.codec': 'snappy'}"
        ),
    )
    project.dbt("run", "--vars", "{run: 1}")
    project.dbt("run", "--vars", "{run: 5}")

    assert not (project.table_dir("defaults") / ".hoodie" / "metadata").exists()
    assert (project.table_dir("with_metadata") / ".hoodie" / "metadata" / "files").is_dir()
    for table in ("defaults", "with_metadata"):
        assert project.scalar(f"select sum(v) from {{schema}}.{table}") == 10
        assert [a for _, _, a in project.completed_instants(table)] == ["commit", "commit"]
    props = {r.key: r.value for r in project.rows("show tblproperties {schema}.defaults")}
    assert props["hoodie.metadata.enable"] == "false"
    assert props["hoodie.datasource.meta.sync.enable"] == "false"
    assert props["hoodie.write.markers.type"] == "DIRECT"
    assert props["hoodie.parquet.compression.codec"] == "snappy"
    # The base files themselves, by their parquet footers.
    base_files = list(project.table_dir("defaults").rglob("*.parquet"))
    assert base_files and {parquet_codec(path) for path in base_files} == {"SNAPPY"}
    # How the adapter looks for a metadata table on a store it cannot list
    # itself (recovery.metadata_table_glob): one row with one, none without.
    for table, rows in (("defaults", 0), ("with_metadata", 1)):
        glob = recovery.metadata_table_glob(f"file:{project.table_dir(table)}")
        assert len(project.rows(f"call show_fs_path_detail(path => '{glob}')")) == rows, table

    # The target now chooses the metadata table and gzip for every model.
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    profile["lake_test"]["outputs"]["local"]["server_side_parameters"] = {
        "hoodie.metadata.enable": "true",
        "hoodie.parquet.compression.codec": "gzip",
    }
    project.write("profiles.yml", yaml.safe_dump(profile))
    project.dbt("run", "--vars", "{run: 7}")
    codecs = {}
    for table in ("defaults", "with_metadata"):
        assert project.scalar(f"select sum(v) from {{schema}}.{table}") == 14
        third = project.completed_instants(table)[-1][0]
        written = list(project.table_dir(table).rglob(f"*_{third}.parquet"))
        assert written, table
        codecs[table] = {parquet_codec(path) for path in written}
    assert codecs == {"defaults": {"GZIP"}, "with_metadata": {"SNAPPY"}}
    assert (project.table_dir("defaults") / ".hoodie" / "metadata" / "files").is_dir()
    props = {r.key: r.value for r in project.rows("show tblproperties {schema}.defaults")}
    assert props["hoodie.metadata.enable"] == "true"
    assert props["hoodie.parquet.compression.codec"] == "gzip"


def file_groups(table_dir) -> set[str]:
    """The file groups of a copy-on-write table: a base file's name begins with its group's id."""
    return {path.name.split("_")[0] for path in table_dir.rglob("*.parquet")}


def test_file_sizing_sends_each_append_to_new_files_and_changes_in_place(project):
    """Hudi's small-file handling makes an append rewrite the newest small file
    with the batch added; `file_sizing: {small_file_mb: 0}` writes each batch
    into new files instead. Changed on an existing table, the setting is
    altered in place and applies from that write."""
    model = """
        {{{{ config(materialized='incremental', incremental_strategy='append'{sizing}) }}}}
        select {{{{ var('run') }}}} * 10 + id as id from (values (1), (2)) as t(id)
    """
    project.model("grows", model.format(sizing=""))
    project.model("sized", model.format(sizing=", file_sizing={'small_file_mb': var('small_mb')}"))
    project.dbt("run", "--vars", "{run: 1, small_mb: 100}")
    # (The first load is a bulk insert: a file group per Spark partition of the batch.)
    first = {table: file_groups(project.table_dir(table)) for table in ("grows", "sized")}
    assert all(first.values())
    project.dbt("run", "--vars", "{run: 2, small_mb: 0}")

    for table in ("grows", "sized"):
        assert project.scalar(f"select count(*) from {{schema}}.{table}") == 4
        assert [a for _, _, a in project.completed_instants(table)] == ["commit", "commit"]
    # The second append grew a small file (a new version of its group)...
    assert file_groups(project.table_dir("grows")) == first["grows"]
    # ...or, with small files off, went into a group of its own.
    assert len(file_groups(project.table_dir("sized")) - first["sized"]) == 1
    props = {r.key: r.value for r in project.rows("show tblproperties {schema}.sized")}
    assert props["hoodie.parquet.small.file.limit"] == "0"
