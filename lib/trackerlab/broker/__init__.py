"""A real Pulsar broker on loopback: a standalone (``PulsarStandaloneStarter``) from a
release's Maven artifacts, started and stopped by PID.

- :mod:`.versions`: which releases run (:func:`select_release`; 4.1 has no broker on Central);
- :mod:`.classpath`: the release's broker class path, resolved by Maven (``maven/pom.xml``);
- :mod:`.config`: the broker's properties, arguments and JVM options (loopback only, one
  bookie, pools for two cores), each value with the Pulsar source it comes from;
- :mod:`.sockets`: free loopback ports, and the TCP sockets a process listens on;
- :mod:`.process`: :func:`start`, :func:`stop`, :func:`status` and the context manager
  :func:`running_broker`;
- :mod:`.host`: ``BrokerHost`` (``host/``), the standalone started in-process with JOL, which
  measures its own delayed-delivery trackers on a loopback line protocol (``running_host``);
- :mod:`.loadgen`: the Java client's workload (``DelayedLoad``), a JVM stopped by PID;
- :mod:`.stats`: the admin API's per-subscription counts (``delayedMessageIndexSizeInBytes``,
  ``msgDelayed``...).

``with running_broker("4.2.4") as b:`` gives a ready broker (``b.service_url``,
``b.admin_url``, ``b.ports``, ``b.pid``) and stops it when the block ends.
"""

from trackerlab.broker.process import (
    Broker,
    BrokerFailed,
    BrokerUnavailable,
    RunStatus,
    Stopped,
    load,
    prepare,
    running_broker,
    runs,
    runs_dir,
    start,
    status,
    stop,
)
from trackerlab.broker.sockets import Listening, listening_sockets
from trackerlab.broker.standalone_config import Ports
from trackerlab.broker.versions import DEFAULT_VERSION, RELEASES, BrokerRelease, select_release

__all__ = [
    "DEFAULT_VERSION",
    "RELEASES",
    "Broker",
    "BrokerFailed",
    "BrokerRelease",
    "BrokerUnavailable",
    "Listening",
    "Ports",
    "RunStatus",
    "Stopped",
    "listening_sockets",
    "load",
    "prepare",
    "running_broker",
    "runs",
    "runs_dir",
    "select_release",
    "start",
    "status",
    "stop",
]
