"""The configuration of a loopback-only standalone broker: its properties file, its
``PulsarStandaloneStarter`` arguments, its JVM options and its log4j2 file.

Everything not set here keeps the release's own default (``ServiceConfiguration`` for the
broker, BookKeeper's ``ServerConfiguration`` for the bookie: the standalone reads one file
into both), so the dispatcher and the trackers run as a user's broker would. What is set:

- **Loopback only.** ``bindAddress`` and ``advertisedAddress`` (broker, web service and the
  bookie's advertised address), the bookie's ``listeningInterface`` (without one it binds
  0.0.0.0) and the ports, which the caller asks the kernel for. Metadata lives in RocksDB
  (``--metadata-dir``, PIP-117, 2.11+): no ZooKeeper, no port. No functions worker (``-nfw``),
  no stream storage (``-nss``). ``-Djava.net.preferIPv4Stack=true`` as ``bin/pulsar`` sets it.
  The broker's own Pulsar client (``PulsarService.getClient``) resolves names with Netty's
  ``DnsNameResolver``, whose UDP socket binds 0.0.0.0 on an ephemeral port unless
  ``dnsLookupBindAddress`` is set: ``brokerClient_dnsLookupBindAddress`` and
  ``brokerClient_dnsLookupBindPort`` (the ``brokerClient_`` prefix is stripped and the rest
  loaded into the client's ``ClientConfigurationData``) bind it to 127.0.0.1.
- **One bookie**, so ensemble, write and ack quorum 1 (the class defaults are 2).
- **Two cores**: thread pools and caches a small machine can hold (values below, each with
  the release default it replaces), a 1 GiB heap and 512 MiB of direct memory.

Sources, read at the release named: ``ServiceConfiguration.java`` (pulsar-broker-common
4.2.4 sources jar), ``ServerConfiguration.java`` and ``BookieNettyServer.java``
(bookkeeper-server 4.17.3, the BookKeeper of Pulsar 4.2.4), ``PulsarStandalone.java`` and
``PulsarStandaloneStarter.java`` (pulsar-broker 4.2.4), ``BKCluster.java`` (pulsar-metadata
4.2.4), and ``bin/pulsar``, ``conf/pulsar_env.sh``, ``conf/standalone.conf`` of apache/pulsar
(``bin/pulsar`` at commit 03a149b9, ``conf/pulsar_env.sh`` at 0a58f58f,
``conf/standalone.conf`` at 0058e734; the distribution's scripts are not on Maven Central).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from trackerlab.broker.sockets import LOOPBACK
from trackerlab.core.log4j import console_log4j2

__all__ = [
    "BROKER_CLIENT_DNS",
    "CLUSTER",
    "MAIN_CLASS",
    "Ports",
    "broker_properties",
    "jvm_options",
    "log4j2_properties",
    "loopback_interface",
    "standalone_args",
    "write_properties",
]

#: pulsar-broker: ``org/apache/pulsar/PulsarStandaloneStarter.java``.
MAIN_CLASS = "org.apache.pulsar.PulsarStandaloneStarter"
#: ``conf/standalone.conf``: ``clusterName=standalone``.
CLUSTER = "standalone"
#: Heap and direct memory of the broker JVM (``conf/pulsar_env.sh`` gives a broker
#: ``-Xms2g -Xmx2g -XX:MaxDirectMemorySize=4g``; a standalone on two cores needs less).
HEAP = "1g"
DIRECT_MEMORY = "512m"
#: BookKeeper's DbLedgerStorage write and read-ahead caches, MiB each. Unset, the standalone
#: gives each a quarter of the direct memory over its instances
#: (``PulsarStandalone.calculateCacheSize``: 512 MiB / 2 / 4 = 64); ``BKCluster``'s own base
#: configuration uses 4.
BOOKIE_CACHE_MB = 16
#: Keys an experiment's overrides may not set: what keeps the broker and bookie on loopback.
PINNED = frozenset({
    "bindAddress", "advertisedAddress", "brokerServicePort", "webServicePort",
    "listeningInterface", "allowLoopback", "advertisedListeners", "bindAddresses",
    "brokerServicePortTls", "webServicePortTls", "bookiePort", "httpServerPort",
    "brokerClient_dnsLookupBindAddress", "brokerClient_dnsLookupBindPort", "bookieId",
})  # fmt: skip
#: The broker's internal client: where its DNS resolver's UDP socket binds. The
#: ``brokerClient_`` keys are loaded into its ``ClientConfigurationData``
#: (``PulsarService.java:1851-1853`` at v4.2.4, ``loadBrokerClientProperties``; the same in
#: ``getClient`` at :1486-1488 v2.11.0, :1606-1608 v3.0.7, :1711-1713 v4.0.1, and
#: ``createClientConfigurationData`` at :1752-1754 v4.0.8) and read by
#: ``ConnectionPool.createAddressResolver`` (``ConnectionPool.java:154-157`` at v2.11.0 and
#: v3.0.7, :190-193 at v4.0.1 and v4.0.8) or, at v4.2.4, by ``DnsResolverGroupImpl``
#: (``DnsResolverGroupImpl.java:45``, built once at ``PulsarService.java:411``), which passes
#: it to ``DnsNameResolverBuilder.localAddress``. Unset, Netty binds the wildcard address.
BROKER_CLIENT_DNS = {
    "brokerClient_dnsLookupBindAddress": LOOPBACK,  # default null: 0.0.0.0
    "brokerClient_dnsLookupBindPort": "0",  # default 0: an ephemeral port
}


@dataclass(frozen=True)
class Ports:
    """The three TCP ports a standalone listens on, all on 127.0.0.1."""

    broker: int  # Pulsar binary protocol (brokerServicePort; release default 6650)
    web: int  # HTTP: admin REST API, metrics (webServicePort; release default 8080)
    bookie: int  # the in-process bookie (--bookkeeper-port; release default 3181)


def loopback_interface() -> str:
    """The name of the loopback interface (``lo`` on Linux): the first interface whose
    ``/sys/class/net/<name>/flags`` has IFF_LOOPBACK (0x8). O(interfaces)."""
    net = Path("/sys/class/net")
    for path in sorted(net.iterdir()) if net.is_dir() else ():
        try:
            if int((path / "flags").read_text(), 16) & 0x8:
                return path.name
        except (OSError, ValueError):
            continue
    return "lo"


def broker_properties(
    ports: Ports, interface: str, overrides: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The standalone's properties file as a dict: broker and bookie keys (one file feeds
    both). Each value names the release default it replaces. ``overrides`` (an experiment's
    own ``ServiceConfiguration`` keys, e.g. ``managedLedgerMaxEntriesPerLedger``) come last;
    they may not touch the loopback keys (:data:`PINNED`)."""
    pinned = sorted(set(overrides or {}) & PINNED)
    if pinned:
        raise ValueError(f"broker overrides may not set {', '.join(pinned)} (loopback only)")
    return {
        # -- broker (ServiceConfiguration, 4.2.4) --
        "clusterName": CLUSTER,
        "bindAddress": LOOPBACK,  # default "0.0.0.0"
        "advertisedAddress": LOOPBACK,  # default: the host name; also the bookie's address
        "brokerServicePort": str(ports.broker),  # default 6650
        "webServicePort": str(ports.web),  # default 8080
        "managedLedgerDefaultEnsembleSize": "1",  # default 2
        "managedLedgerDefaultWriteQuorum": "1",  # default 2
        "managedLedgerDefaultAckQuorum": "1",  # default 2
        "numIOThreads": "2",  # default 2 x cores
        "numOrderedExecutorThreads": "1",  # default 8
        "numHttpServerThreads": "8",  # default max(8, 2 x cores): Jetty needs 8
        "numExecutorThreadPoolSize": "2",  # default cores
        "numCacheExecutorThreadPoolSize": "1",  # default 10
        "managedLedgerNumSchedulerThreads": "1",  # default cores
        "bookkeeperClientNumWorkerThreads": "1",  # default cores
        "bookkeeperClientNumIoThreads": "2",  # default 2 x cores (3.0+)
        "managedLedgerCacheSizeMB": "32",  # default max(64, direct memory / 5)
        "functionsWorkerEnabled": "false",  # default false; -nfw says it again
        **BROKER_CLIENT_DNS,  # the internal client's DNS socket on 127.0.0.1 (see above)
        # default unset: the load manager reads the NIC's speed from /sys, which a virtual NIC
        # may not report; 2.11 and 3.0 then refuse to start ("Unable to read VM NIC speed",
        # LinuxBrokerHostUsageImpl). It only weighs bandwidth in load reports.
        "loadBalancerOverrideBrokerNicSpeedGbps": "10",
        # -- bookie (BookKeeper ServerConfiguration, 4.17.3) --
        # null binds 0.0.0.0 (BookieNettyServer); an interface binds the advertised address
        "listeningInterface": interface,
        "allowLoopback": "true",  # default false; BKCluster sets it with the interface
        # default false: the bookie takes a port of its own choosing (BKCluster), not ours
        "allowEphemeralPorts": "true",
        # default null: the bookie's ID is then its address, 127.0.0.1:PORT, the same string;
        # but with no ID the cookie check also tries the address without the advertised one
        # (LegacyCookieValidation.possibleBookieIds, LegacyCookieValidation.java:143-160 at
        # 4.17.3), which for listeningInterface=lo asks DNS.getHosts -> reverseDns: a PTR query
        # for 1.0.0.127.in-addr.arpa to /etc/resolv.conf's nameserver (DNS.java:78, JNDI
        # "dns:///"; BookieImpl.java:265-270), measured with strace at start
        "bookieId": f"{LOOPBACK}:{ports.bookie}",
        "serverNumIOThreads": "2",  # default 2 x cores
        "numAddWorkerThreads": "1",  # default 1
        "numReadWorkerThreads": "2",  # default 8
        "numHighPriorityWorkerThreads": "1",  # default 8
        "journalSyncData": "false",  # default true: no fsync per entry on a throwaway bookie
        "dbStorage_writeCacheMaxSizeMb": str(BOOKIE_CACHE_MB),
        "dbStorage_readAheadCacheMaxSizeMb": str(BOOKIE_CACHE_MB),
        **dict(overrides or {}),
    }


def write_properties(path: Path, properties: dict[str, str]) -> Path:
    """Write ``key=value`` lines (Java properties; the values hold no special characters)."""
    header = "# written by trackerlab.broker: a loopback-only Pulsar standalone\n"
    path.write_text(header + "".join(f"{k}={v}\n" for k, v in properties.items()))
    return path


def standalone_args(conf: Path, data: Path, ports: Ports) -> list[str]:
    """``PulsarStandaloneStarter``'s arguments: no functions worker, no stream storage, one
    bookie on ``ports.bookie``, RocksDB metadata and bookie data under ``data``."""
    return [
        "-c", str(conf),
        "-nfw", "-nss",
        "-a", LOOPBACK,
        "--num-bookies", "1",
        "--bookkeeper-port", str(ports.bookie),
        "--metadata-dir", str(data / "metadata"),
        "--bookkeeper-dir", str(data / "bookkeeper"),
        # no ZooKeeper runs (RocksDB metadata); its data folder is where the standalone looks
        # for an old ZooKeeper deployment, so keep it inside this run's fresh folder
        "--zookeeper-dir", str(data / "zookeeper"),
    ]  # fmt: skip


def jvm_options(log4j2: Path, log: Path) -> list[str]:
    """The broker JVM's options: memory for two cores and ``bin/pulsar``'s system
    properties and ``--add-opens``."""
    return [
        f"-Xms{HEAP}", f"-Xmx{HEAP}", f"-XX:MaxDirectMemorySize={DIRECT_MEMORY}",
        # conf/pulsar_env.sh's collector (G1) with its thread counts fitted to two cores
        "-XX:+UseG1GC", "-XX:ParallelGCThreads=2", "-XX:ConcGCThreads=1",
        "-XX:+ExitOnOutOfMemoryError",
        # bin/pulsar
        "-Djava.net.preferIPv4Stack=true",
        "-Dio.netty.tryReflectionSetAccessible=true",
        "-Djute.maxbuffer=10485760",
        "--add-opens", "java.base/java.io=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED",
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/sun.net=ALL-UNNAMED",
        "--add-opens", "java.management/sun.management=ALL-UNNAMED",
        # the load manager's LinuxInfoUtils reads jdk.internal.platform.Container (else a
        # WARN with a stack at start)
        "--add-opens", "java.base/jdk.internal.platform=ALL-UNNAMED",
        "-Dbookkeeper.metadata.bookie.drivers="
        "org.apache.pulsar.metadata.bookkeeper.PulsarMetadataBookieDriver",
        "-Dbookkeeper.metadata.client.drivers="
        "org.apache.pulsar.metadata.bookkeeper.PulsarMetadataClientDriver",
        # 4.0.8+ carry OpenTelemetry's GCP resource detector (opentelemetry-gcp-resources, an
        # autoconfigure ResourceProvider): at start it looks up metadata.google.internal (a DNS
        # query to the system's nameserver, measured with strace); system properties override
        # the defaults Pulsar's OpenTelemetryService supplies
        "-Dotel.java.disabled.resource.providers="
        "io.opentelemetry.contrib.gcp.resource.GCPResourceProvider",
        # conf/pulsar_env.sh's PULSAR_EXTRA_OPTS
        "-Dpulsar.allocator.exit_on_oom=true",
        "-Dio.netty.recycler.maxCapacityPerThread=4096",
        # logging: one file per run; the JVM's own shutdown hook logs the close
        f"-Dlog4j.configurationFile={log4j2}",
        f"-Dlog4j2.configurationFile={log4j2}",
        "-Dlog4j.shutdownHookEnabled=false",
        f"-Dtrackerlab.broker.log={log}",
    ]  # fmt: skip


def log4j2_properties() -> str:
    """log4j2 for the broker: INFO and above, to standard output, which the launcher sends
    to the run's log file (with the JVM's and Jersey's own messages, in order)."""
    header = "written by trackerlab.broker: the broker's messages to stdout (the run's broker.log)"
    return console_log4j2(header, "info", "SYSTEM_OUT")
