"""The latency benchmark's arguments (adlake.bench.target_latency): refused
before it generates or starts anything."""

import pytest

from adlake.bench import target_latency


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
