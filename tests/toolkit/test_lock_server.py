"""The ZooKeeper server the project starts for Hudi's lock
(adlake.servers.lock_server): a real one, from pyspark's own jars, on
127.0.0.1 only, serving once `start` returns, refusing a second start on its
folder or port, stopped by its process id."""

from __future__ import annotations

import socket

import pytest

from adlake.servers import lock_server, processes
from adlake.servers.catalog import free_port


def test_serves_on_the_loopback_and_stops_by_its_pid(tmp_path):
    port = free_port()
    folder = tmp_path / "zk"
    pid = lock_server.start(port, folder)
    try:
        state = lock_server.status(folder)
        assert state is not None and state["alive"] and state["pid"] == pid
        assert lock_server.ask(port, "ruok") == "imok"
        # A fresh server holds ZooKeeper's own nodes only.
        assert 0 < lock_server.node_count(port) < 10
        # Not on the machine's other addresses.
        outside = [a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
        for address in {a for a in outside if not a.startswith("127.")}:
            assert not processes.port_open(port, address)
        with pytest.raises(lock_server.LockServerError, match=f"pid {pid}"):
            lock_server.start(free_port(), folder)
        with pytest.raises(lock_server.LockServerError, match=f"port {port} is already in use"):
            lock_server.start(port, tmp_path / "other")
    finally:
        lock_server.stop(folder)
    assert not processes.alive(pid)
    assert not processes.port_open(port)
    assert lock_server.main(["status", "--dir", str(folder)]) == 3
