"""The TCP sockets a process listens on, read from /proc (Linux), no tools needed."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

LISTEN = "0A"


def process_tree(pid: int) -> list[int]:
    """pid and its descendants (spark-submit may run the JVM as a child)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo += [int(child) for child in task.read_text().split()]
            except FileNotFoundError:  # the task ended after it was listed
                continue
    return found


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except FileNotFoundError:  # the process ended after the tree was listed
        return inodes
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def _address(hex_address: str) -> tuple[str, int]:
    host, port = hex_address.split(":")
    # /proc writes each 32-bit word of the address in host (little-endian) order.
    raw = b"".join(bytes.fromhex(host[i : i + 8])[::-1] for i in range(0, len(host), 8))
    address = ipaddress.ip_address(raw)
    if address.version == 6 and address.ipv4_mapped:
        address = address.ipv4_mapped
    return str(address), int(port, 16)


def listening(pid: int) -> list[tuple[str, int]]:
    """(address, port) of every TCP socket that pid or its descendants listen on."""
    inodes = set()
    for member in process_tree(pid):
        inodes |= _socket_inodes(member)
    bound = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == LISTEN and fields[9] in inodes:
                bound.append(_address(fields[1]))
    return sorted(bound)
