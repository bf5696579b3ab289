"""The standalone's configuration: loopback only, one bookie, small pools."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerlab.broker import process, standalone_config

PORTS = standalone_config.Ports(broker=41001, web=41002, bookie=41003)


def test_every_address_and_port_is_loopback_and_ours():
    props = standalone_config.broker_properties(PORTS, "lo")
    assert props["bindAddress"] == props["advertisedAddress"] == "127.0.0.1"
    assert props["listeningInterface"] == "lo" and props["allowLoopback"] == "true"
    assert (props["brokerServicePort"], props["webServicePort"]) == ("41001", "41002")
    # without allowEphemeralPorts the bookie ignores --bookkeeper-port (BKCluster)
    assert props["allowEphemeralPorts"] == "true"
    args = standalone_config.standalone_args(Path("/r/broker.conf"), Path("/r/data"), PORTS)
    assert args[args.index("--bookkeeper-port") + 1] == "41003"
    assert args[args.index("-a") + 1] == "127.0.0.1"
    assert {"-nfw", "-nss"} <= set(args)
    assert all(a.startswith("/r/") for a in args if a.startswith("/"))


def test_the_internal_clients_dns_socket_binds_loopback():
    """PulsarService loads the brokerClient_-prefixed keys into its client's
    ClientConfigurationData (dnsLookupBindAddress, dnsLookupBindPort): unset, Netty's
    DnsNameResolver binds 0.0.0.0 (measured: tests/broker/test_run_safety.py)."""
    props = standalone_config.broker_properties(PORTS, "lo")
    assert props["brokerClient_dnsLookupBindAddress"] == "127.0.0.1"
    assert props["brokerClient_dnsLookupBindPort"] == "0"


def test_the_bookie_id_is_its_loopback_address_and_no_cloud_detector_runs():
    """A bookieId spares the cookie check's reverse-DNS of 127.0.0.1 (a PTR query to the
    system's nameserver, seen with strace); it is the address the bookie would take anyway."""
    props = standalone_config.broker_properties(PORTS, "lo")
    assert props["bookieId"] == "127.0.0.1:41003"
    opts = standalone_config.jvm_options(Path("/r/log4j2.properties"), Path("/r/broker.log"))
    assert (
        "-Dotel.java.disabled.resource.providers="
        "io.opentelemetry.contrib.gcp.resource.GCPResourceProvider" in opts
    )


def test_one_bookie_quorums_and_no_functions_worker():
    props = standalone_config.broker_properties(PORTS, "lo")
    for key in ("EnsembleSize", "WriteQuorum", "AckQuorum"):
        assert props[f"managedLedgerDefault{key}"] == "1"
    assert props["functionsWorkerEnabled"] == "false"
    assert int(props["numIOThreads"]) <= 2 and int(props["numOrderedExecutorThreads"]) == 1


def test_the_jvm_is_small_and_prefers_ipv4():
    opts = standalone_config.jvm_options(Path("/r/log4j2.properties"), Path("/r/broker.log"))
    assert "-Xmx1g" in opts and "-XX:MaxDirectMemorySize=512m" in opts
    assert "-Djava.net.preferIPv4Stack=true" in opts


def test_the_loopback_interface_is_found():
    assert standalone_config.loopback_interface() == "lo"


def test_properties_and_argument_files_round_trip(tmp_path):
    path = standalone_config.write_properties(
        tmp_path / "b.conf", {"a": "1", "bindAddress": "127.0.0.1"}
    )
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    assert lines == ["a=1", "bindAddress=127.0.0.1"]
    assert process._argfile(['-Dx=a "b"', "C:\\p"]) == '"-Dx=a \\"b\\""\n"C:\\\\p"\n'


def test_overrides_come_last_but_never_touch_loopback():
    props = standalone_config.broker_properties(
        PORTS, "lo", {"managedLedgerMaxEntriesPerLedger": "5000"}
    )
    assert props["managedLedgerMaxEntriesPerLedger"] == "5000"
    assert props["bindAddress"] == "127.0.0.1"
    for key in (
        "bindAddress",
        "advertisedListeners",
        "listeningInterface",
        "brokerClient_dnsLookupBindAddress",
    ):
        with pytest.raises(ValueError, match=key):
            standalone_config.broker_properties(PORTS, "lo", {key: "0.0.0.0"})
