"""Loopback ports for a broker, and the TCP sockets a process listens on (Linux ``/proc``).

:func:`free_ports` asks the kernel for free ports on 127.0.0.1 (bind to port 0, read the
port, close). :func:`listening_sockets` lists what a process group listens on: the socket
inodes of each process's ``/proc/<pid>/fd`` matched against the ``LISTEN`` rows of its
``/proc/<pid>/net/tcp`` and ``tcp6``, so a test can check that every one is on loopback.
:func:`open_sockets` lists every TCP and UDP socket of a set of processes (local and remote
end), and :func:`off_loopback` those that listen on, are bound to or are connected to an
address other than loopback (a broker or a workload client must have none).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "LOOPBACK", "Bound", "Listening", "free_ports", "group_pids", "listening_sockets",
    "off_loopback", "open_sockets",
]  # fmt: skip

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
    inodes: set[str] = set()
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


_PROTOCOLS = ("tcp", "tcp6", "udp", "udp6")
_UDP_UNCONNECTED = "07"  # TCP_CLOSE: an unconnected UDP socket (bound, or not yet)


@dataclass(frozen=True, order=True)
class Bound:
    """One TCP or UDP socket a process holds: its protocol, local and remote end, state."""

    protocol: str  # tcp, tcp6, udp, udp6
    address: str
    port: int
    remote: str
    remote_port: int
    state: str  # /proc/net's "st" column, hex (0A: TCP listen; 07: UDP unconnected)
    pid: int

    @property
    def listening(self) -> bool:
        """A TCP socket in LISTEN, or a UDP socket with a local port (it receives)."""
        if self.protocol.startswith("tcp"):
            return self.state == _TCP_LISTEN
        return self.port != 0

    @property
    def loopback(self) -> bool:
        """Its local end is on loopback and so is its remote end, if it has one."""
        remote = Listening(self.remote, self.remote_port, self.pid)
        connected = self.remote_port != 0
        return Listening(self.address, self.port, self.pid).loopback and (
            not connected or remote.loopback
        )

    def __str__(self) -> str:
        local = Listening(self.address, self.port, self.pid)
        far = (
            f" -> {Listening(self.remote, self.remote_port, self.pid)}" if self.remote_port else ""
        )
        return f"{self.protocol} {local}{far} (pid {self.pid}, state {self.state})"


def open_sockets(pids: list[int]) -> list[Bound]:
    """Every TCP and UDP socket (IPv4 and IPv6) held by ``pids``: each process's socket
    inodes (``/proc/<pid>/fd``) matched against its ``/proc/<pid>/net/{tcp,tcp6,udp,udp6}``.
    A process that has exited is skipped. O(sockets)."""
    found: set[Bound] = set()
    for pid in pids:
        inodes = _socket_inodes(pid)
        for table in _PROTOCOLS:
            try:
                lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
            except OSError:
                continue
            for line in lines:
                cols = line.split()
                if cols[9] not in inodes:
                    continue
                address, port = cols[1].split(":")
                remote, remote_port = cols[2].split(":")
                found.add(Bound(table, _address(address), int(port, 16), _address(remote),
                                int(remote_port, 16), cols[3], pid))  # fmt: skip
    return sorted(found)


def off_loopback(pids: list[int]) -> list[Bound]:
    """The sockets of ``pids`` that reach past loopback: listening (TCP) or bound (UDP) on
    another address, or connected to one. An empty list is what a test wants."""
    return [s for s in open_sockets(pids) if (s.listening or s.remote_port) and not s.loopback]
