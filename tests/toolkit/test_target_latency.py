"""The latency benchmark's arguments (adlake.bench.target_latency): refused
before it generates or starts anything."""

import pytest

from adlake.bench import target_latency
from adlake.bench.freshness import preload_chunks


def test_two_embedded_targets_in_one_command_are_refused(tmp_path, capsys):
    # The local-s3 target would run on the session the local one started,
    # against the local warehouse, and its s3a:// reads would fail mid-run.
    with pytest.raises(SystemExit) as exit_info:
        target_latency.main(["--targets", "local,local-s3", "--work", str(tmp_path)])
    assert exit_info.value.code == 2
    message = capsys.readouterr().err
    assert "local and local-s3" in message and "--targets local-s3" in message
    assert not (tmp_path / "generated").exists()


def test_an_unknown_target_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        target_latency.main(["--targets", "local,s3", "--work", str(tmp_path)])
    assert "choose targets from" in capsys.readouterr().err


def test_a_preload_is_built_a_chunk_at_a_time_before_the_warm_up():
    # 1M events of 100k-event batches, 300k a run, the last 2 batches of the
    # preload built one by one: batches 1-8 in three runs.
    assert preload_chunks(8, 3) == [range(1, 4), range(4, 7), range(7, 9)]
    assert preload_chunks(8, 10) == [range(1, 9)]
    assert preload_chunks(0, 3) == []  # no preload: the warm-up batches alone


@pytest.mark.parametrize(
    "option", [["--hudi", "metadata.enable=true"], ["--hudi", "hoodie.x"], ["--spark-conf", "x"]]
)
def test_a_setting_that_is_not_key_equals_value_is_refused(tmp_path, capsys, option):
    with pytest.raises(SystemExit) as exit_info:
        target_latency.main(["--targets", "local-s3", "--work", str(tmp_path), *option])
    assert exit_info.value.code == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert not (tmp_path / "generated").exists()


def test_a_requests_key_is_put_down_to_its_table():
    assert target_latency.table_of("warehouse/adlake_dws.db/dws_spend_hourly/.hoodie/x") == (
        "adlake_dws.dws_spend_hourly"
    )
    # A listing's prefix of the table's folder itself.
    assert target_latency.table_of("warehouse/adlake_dwd.db/dwd_accounts/") == (
        "adlake_dwd.dwd_accounts"
    )
    assert target_latency.table_of("landing/billing_events/batch-0001.jsonl") == "landing"
    assert target_latency.table_of("warehouse/adlake_ods.db/") == "adlake_ods"
    assert target_latency.table_of("warehouse/") == "warehouse"
    assert target_latency.table_of("") == "(bucket)"
