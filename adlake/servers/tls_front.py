"""TLS in front of a Spark 3.5 Connect server.

Spark 3.5's Connect server speaks plaintext gRPC only, and pyspark's client
sends a token only over TLS (a token in the connection string turns TLS on).
This process accepts TLS connections (ALPN h2, as gRPC requires), and pipes
each one, unchanged, to the server's port on 127.0.0.1: the token in the
HTTP/2 headers reaches the server, whose interceptor checks it
(java/LoopbackOrTokenInterceptor.java); to the server, the front is a loopback
client.

    python -m adlake.servers.tls_front --listen 127.0.0.1:15443 \\
        --upstream 127.0.0.1:15002 --cert cert.pem --key key.pem

`adlake.servers.spark_server start connect --token-env NAME` starts and stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import ssl
import subprocess
from pathlib import Path

CHUNK = 1 << 16


def make_certificate(folder: Path, hosts: list[str]) -> tuple[Path, Path]:
    """A self-signed certificate (it is its own CA) for `hosts`, made once:
    clients trust it through the profile's tls_ca_file."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    if cert.exists() and key.exists():
        return cert, key
    names = ",".join(
        ("IP:" if host.replace(".", "").isdigit() else "DNS:") + host
        for host in dict.fromkeys([*hosts, "localhost", "127.0.0.1"])
    )
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "365"]
        + ["-subj", "/CN=adlake-spark-connect", "-addext", f"subjectAltName={names}"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    key.chmod(0o600)
    return cert, key


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


async def serve(listen: tuple[str, int], upstream: tuple[str, int], cert: Path, key: Path) -> None:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])

    async def relay(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(*upstream)
        except OSError:
            client_w.close()
            return
        # Either side closing ends both: a gRPC connection is one long HTTP/2 session.
        await asyncio.gather(_pipe(client_r, server_w), _pipe(server_r, client_w))

    server = await asyncio.start_server(relay, *listen, ssl=context)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    async with server:
        await stop.wait()


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description="TLS front of a Spark Connect server")
    parser.add_argument("--listen", type=_address, required=True, help="HOST:PORT")
    parser.add_argument("--upstream", type=_address, required=True, help="127.0.0.1:PORT")
    parser.add_argument("--cert", type=Path, required=True)
    parser.add_argument("--key", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.listen, args.upstream, args.cert, args.key))


if __name__ == "__main__":
    main()
