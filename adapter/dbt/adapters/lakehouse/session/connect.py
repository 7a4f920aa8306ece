"""Spark Connect (`method: connect`): each dbt connection is a session of its
own on a remote Spark Connect server.

A Connect session has its own SQL settings on the server, as a child session
has in the embedded JVM, so a model's `SET hoodie.*` stays in its connection;
the cursor is the embedded method's (`SessionCursor`), on the remote session.

Spark Connect's Python client retries an unreachable server for about ten
minutes before it gives up. A run must not hang on a server that is not there
or that died: the connection first checks, within connect_timeout, that
something listens, and the client then retries for a few seconds only.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbt.adapters.spark import session as spark_session
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.lakehouse.session.embedded import SessionCursor, check_hudi_enabled

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    from dbt.adapters.lakehouse.credentials import LakehouseCredentials

# About 3 s of retries (0.2 + 0.8 + 2 s) on a server that stopped answering,
# instead of the client's default of up to ten minutes.
FAIL_FAST = {
    "max_retries": 3,
    "initial_backoff": 200,
    "max_backoff": 2000,
    "backoff_multiplier": 4.0,
}

HOW_TO_START = (
    "Start a Spark Connect server with the Hudi bundle and its SQL extension and catalog, e.g. "
    "`$SPARK_HOME/sbin/start-connect-server.sh --jars hudi-spark3.5-bundle_2.12-1.2.0.jar,"
    "spark-connect_2.12-3.5.7.jar --conf spark.sql.extensions="
    "org.apache.spark.sql.hudi.HoodieSparkSessionExtension --conf "
    "spark.sql.catalog.spark_catalog=org.apache.spark.sql.hudi.catalog.HoodieCatalog` "
    "or correct host and port in the profile."
)


# pyspark's Connect client imports pandas, pyarrow and grpc when it loads and
# says only which one is missing; the user needs the command that installs
# the set pyspark 3.5 works with (the wheel's `connect` extra).
MISSING_CLIENT = (
    "Spark Connect's Python client cannot be loaded ({reason}). `method: connect` and warm "
    "start (method: session) need it, with pandas, pyarrow, NumPy 1.x and grpcio in versions "
    "pyspark 3.5 works with: pip install 'dbt-lakehouse[connect]'"
)


def remote_session_class() -> type[RemoteSession]:
    """pyspark's Connect session class, or an error that says what to install."""
    try:
        from pyspark.sql.connect.session import SparkSession
    except ImportError as exc:
        raise DbtRuntimeError(MISSING_CLIENT.format(reason=exc)) from None
    return SparkSession


def check_reachable(host: str, port: int, timeout: float, what: str, how_to_start: str) -> None:
    """Fail at once, naming the server, when nothing accepts connections there."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise DbtRuntimeError(
            f"No {what} answers at {host}:{port} ({reason}). {how_to_start}"
        ) from None


@dataclass(frozen=True)
class Endpoint:
    """Where a connection's Connect session lives, and how errors name it:
    the profile's server (`method: connect`), or the lake's warm server
    (warm/client.py), which adds its token as a gRPC header."""

    host: str
    port: int
    what: str = "Spark Connect server"
    how_to_start: str = HOW_TO_START
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of_profile(cls, creds: LakehouseCredentials) -> Endpoint:
        return cls(str(creds.host), creds.port)


def _channel_builder(creds: LakehouseCredentials, endpoint: Endpoint) -> Any:
    import grpc
    from pyspark.sql.connect.client import ChannelBuilder

    class Channel(ChannelBuilder):
        """pyspark's, with the token kept out of the connection string and
        the server's certificate authority from the profile."""

        def toChannel(self) -> grpc.Channel:
            if not (creds.use_ssl or creds.token):
                return grpc.insecure_channel(self.endpoint, options=self._channel_options)
            roots = Path(creds.tls_ca_file).read_bytes() if creds.tls_ca_file else None
            credentials = grpc.ssl_channel_credentials(root_certificates=roots)
            if creds.token:
                credentials = grpc.composite_channel_credentials(
                    credentials, grpc.access_token_call_credentials(creds.token)
                )
            return grpc.secure_channel(self.endpoint, credentials, options=self._channel_options)

    builder = Channel(f"sc://{endpoint.host}:{endpoint.port}")
    builder.params["user_agent"] = "dbt-lakehouse"
    # pyspark sends every parameter it does not use itself as gRPC metadata.
    builder.params.update(endpoint.headers)
    return builder


def _first_call_error(exc: Exception, endpoint: Endpoint) -> DbtRuntimeError:
    """The first request's failure, said in the profile's terms."""
    details, code = getattr(exc, "details", None), getattr(exc, "code", None)
    message = str(details() if callable(details) else exc)  # a gRPC error's own text
    if callable(code):
        message = f"{code().name}: {message}"
    where = f"the {endpoint.what} at {endpoint.host}:{endpoint.port}"
    if "UNAUTHENTICATED" in message or "token" in message.lower():
        return DbtRuntimeError(
            f"{where} refused this connection's token: set the profile's `token` to the "
            f"server's (from an environment variable). The server said: {message}"
        )
    if "PERMISSION_DENIED" in message or "loopback" in message:
        return DbtRuntimeError(f"{where} refused this client: {message}")
    if "SSL" in message or "handshake" in message.lower() or "certificate" in message.lower():
        return DbtRuntimeError(
            f"No TLS connection to {where}: check `use_ssl` (the server must serve TLS) and "
            f"`tls_ca_file` (the authority that signed its certificate). {message}"
        )
    return DbtRuntimeError(f"{where} failed the first request: {message}")


class ConnectConnection(spark_session.Connection):
    """One Spark Connect session per dbt connection, with the runtime settings applied."""

    def __init__(
        self,
        creds: LakehouseCredentials,
        runtime_conf: dict[str, str],
        endpoint: Endpoint | None = None,
    ) -> None:
        remote_session = remote_session_class()
        super().__init__(server_side_parameters=runtime_conf)
        endpoint = endpoint or Endpoint.of_profile(creds)
        check_reachable(
            endpoint.host,
            endpoint.port,
            creds.connect_timeout,
            endpoint.what,
            endpoint.how_to_start,
        )
        self.session = remote_session(connection=_channel_builder(creds, endpoint))
        self.session._client._retry_policy.update(FAIL_FAST)
        # Plain executions: a reattachable one is released afterwards by a
        # background call, which a connection closed at the end of its model
        # (as dbt closes them) cuts off. Statements here are short, on a
        # local or private network; a dropped one fails its model.
        self.session._client.disable_reattachable_execute()
        where = f"The {endpoint.what} at {endpoint.host}:{endpoint.port}"
        try:
            check_hudi_enabled(self.session, where)
        except DbtRuntimeError:
            self.close()
            raise
        except Exception as exc:
            self.close()
            raise _first_call_error(exc, endpoint) from None
        for key, value in runtime_conf.items():
            try:
                self.session.conf.set(key, value)
            except Exception as exc:
                self.close()
                raise DbtRuntimeError(
                    f"server_side_parameters {key}: {where} refused it ({str(exc)[:300]}). "
                    "Static settings (spark.sql.extensions, spark.jars, ...) belong to the "
                    "server: set them where it starts."
                ) from None

    def cursor(self) -> SessionCursor:
        return SessionCursor(self.session)

    def close(self) -> None:
        # The channel only: pyspark 3.5's client.close() also shuts down a
        # thread pool that every client of the process shares (the one that
        # releases finished executions), and other threads' statements then
        # fail with "Pool not running".
        self.session.client._channel.close()


class ConnectConnectionWrapper(spark_session.SessionConnectionWrapper):
    """dbt-spark's session wrapper; closing it also ends the gRPC channel."""

    handle: ConnectConnection

    def close(self) -> None:
        super().close()
        self.handle.close()
