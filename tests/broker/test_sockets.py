"""Free loopback ports and the listening sockets of a process, read from /proc."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest

from trackerlab.broker import sockets


def test_free_ports_are_distinct_and_bindable():
    ports = sockets.free_ports(3)
    assert len(set(ports)) == 3
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


@pytest.mark.parametrize(
    ("hex_address", "address"),
    [
        ("0100007F", "127.0.0.1"),
        ("00000000", "0.0.0.0"),
        ("00000000000000000000000001000000", "::1"),
        ("0000000000000000FFFF00000100007F", "::ffff:127.0.0.1"),
    ],
)
def test_proc_addresses_are_decoded(hex_address, address):
    assert ipaddress.ip_address(sockets._address(hex_address)) == ipaddress.ip_address(address)


def test_listening_sockets_of_this_process_say_which_are_loopback():
    """A socket on 127.0.0.1, one on every interface and one on ::1 (where IPv6 is on)."""
    held = []
    try:
        for family, host in [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET, "0.0.0.0")]:
            s = socket.socket(family)
            s.bind((host, 0))
            s.listen()
            held.append(s)
        if socket.has_ipv6:
            try:
                s6 = socket.socket(socket.AF_INET6)
                s6.bind(("::1", 0))
                s6.listen()
                held.append(s6)
            except OSError:  # no IPv6 on this machine
                pass
        ports = {s.getsockname()[1]: s.getsockname()[0] for s in held}
        found = {x.port: x for x in sockets.listening_sockets([os.getpid()])}
        assert set(ports) <= set(found)
        for port, host in ports.items():
            assert found[port].address == host
            assert found[port].pid == os.getpid()
            assert found[port].loopback == (host != "0.0.0.0")
        connected = socket.create_connection(("127.0.0.1", held[0].getsockname()[1]))
        connected.close()  # a connected (not listening) socket is never listed
    finally:
        for s in held:
            s.close()


def test_group_pids_lists_this_process_group():
    assert os.getpid() in sockets.group_pids(os.getpgid(0))
    assert sockets.group_pids(2**22 + 12345) == []


def test_open_sockets_flag_udp_and_tcp_off_loopback():
    """A UDP socket bound to 0.0.0.0 is off loopback, one on 127.0.0.1 is not; a TCP
    connection between two loopback ends is not; nothing else of this process is listed."""
    held = []
    try:
        wide = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        wide.bind(("0.0.0.0", 0))
        local = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        local.bind(("127.0.0.1", 0))
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        client = socket.create_connection(server.getsockname())
        held += [wide, local, server, client]
        ports = {s.getsockname()[1] for s in held}
        found = [s for s in sockets.open_sockets([os.getpid()]) if s.port in ports]
        udp = {s.port: s for s in found if s.protocol == "udp"}
        assert udp[wide.getsockname()[1]].listening and not udp[wide.getsockname()[1]].loopback
        assert udp[local.getsockname()[1]].loopback
        conn = [s for s in found if s.protocol == "tcp" and s.port == client.getsockname()[1]]
        assert conn and conn[0].remote_port == server.getsockname()[1] and conn[0].loopback
        off = [s for s in sockets.off_loopback([os.getpid()]) if s.port in ports]
        assert [s.port for s in off] == [wide.getsockname()[1]], [str(s) for s in off]
        assert "udp 0.0.0.0:" in str(off[0])
    finally:
        for s in held:
            s.close()


def test_a_connection_to_another_host_is_off_loopback():
    """The remote end counts: 127.0.0.1 talking to 10.0.0.1 is not loopback (no traffic is
    sent: the row is built, as /proc would give it)."""
    far = sockets.Bound("tcp", "127.0.0.1", 40000, "10.0.0.1", 6650, "01", 1)
    near = sockets.Bound("tcp", "127.0.0.1", 40000, "127.0.0.1", 6650, "01", 1)
    assert not far.loopback and near.loopback and not near.listening
