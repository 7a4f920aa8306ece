"""`method: connect` without Spark Connect's Python client: the connection
says which pip command installs it (no Spark, no server; the client's absence
is simulated, since this repository's environment has it)."""

from __future__ import annotations

import sys

import pytest
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.credentials import LakehouseCredentials
from dbt.adapters.lakehouse.session import connect as connect_session


@pytest.fixture
def no_connect_client(monkeypatch):
    # None in sys.modules makes importing the module raise ImportError, as
    # pyspark's own check does when it loads without pandas, pyarrow or grpc.
    monkeypatch.setitem(sys.modules, "pyspark.sql.connect.session", None)


def test_a_connect_connection_without_the_client_names_the_extra(no_connect_client):
    creds = LakehouseCredentials.from_dict(
        {"method": "connect", "host": "127.0.0.1", "schema": "adlake"}
    )
    with pytest.raises(DbtRuntimeError) as raised:
        connect_session.ConnectConnection(creds, creds.server_side_parameters)
    message = str(raised.value)
    assert "pip install 'dbt-lakehouse[connect]'" in message
    assert "Spark Connect's Python client cannot be loaded" in message
    # The import's own reason is kept, for whoever has to dig further.
    assert "pyspark.sql.connect.session" in message


def test_the_client_loads_where_the_extra_is_installed():
    # This environment installs requirements.txt, the extra's pinned set.
    assert connect_session.remote_session_class().__module__ == "pyspark.sql.connect.session"
