"""Loopback ports for a broker, and the TCP sockets a process listens on (Linux ``/proc``).

:func:`free_ports` asks the kernel for free ports on 127.0.0.1 (bind to port 0, read the
port, close). :func:`listening_sockets` lists what a process group listens on: the socket
inodes of each process's ``/proc/<pid>/fd`` matched against the ``LISTEN`` rows of its
``/proc/<pid>/net/tcp`` and ``tcp6``, so a test can check that every one is on loopback.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LOOPBACK", "Listening", "free_ports", "group_pids", "listening_sockets"]

LOOPBACK = "127.0.0.1"
_TCP_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's "st" column (include/net/tcp_states.h)


@dataclass(frozen=True, order=True)
class Listening:
    """One listening TCP socket: its address, port and the process holding it."""

    address: str
    port: int
    pid: int

    @property
    def loopback(self) -> bool:
        """Bound to a loopback address (127.0.0.0/8, ::1 or ::ffff:127.x)."""
        ip = ipaddress.ip_address(self.address)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return ip.is_loopback

    def __str__(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{host}:{self.port}"


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports that are free on 127.0.0.1 now, asked from the kernel with
    all sockets open at once (so none repeats). Another process may take one before the
    broker binds it: the broker then fails to start and says which port. O(count)."""
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            held.append(s)
            s.bind((LOOPBACK, 0))
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def group_pids(pgid: int) -> list[int]:
    """Live processes of process group ``pgid`` (zombies excluded). O(processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        stat = _stat(int(entry.name))
        if stat is not None and stat[2] == pgid and stat[0] not in "ZX":
            found.append(int(entry.name))
    return sorted(found)


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, pgid) from ``/proc/<pid>/stat``, None when the process is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[2])


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return inodes
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _address(hex_address: str) -> str:
    """``0100007F`` -> ``127.0.0.1``; 32 hex digits -> an IPv6 address (each 32-bit word is
    in host byte order, little-endian here)."""
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words))


def listening_sockets(pids: list[int]) -> list[Listening]:
    """Every listening TCP socket (IPv4 and IPv6) held by ``pids``, sorted. O(sockets)."""
    found: set[Listening] = set()
    for pid in pids:
        inodes = _socket_inodes(pid)
        for table in ("tcp", "tcp6"):
            try:
                lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
            except OSError:
                continue
            for line in lines:
                cols = line.split()
                if cols[3] != _TCP_LISTEN or cols[9] not in inodes:
                    continue
                address, port = cols[1].split(":")
                found.add(Listening(_address(address), int(port, 16), pid))
    return sorted(found)
