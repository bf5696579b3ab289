"""What the real-broker tests share: the release they run, its broker class path and host
build (skipping, naming what is missing: Java, ``mvn`` or Maven Central), and the brokers
trackerlab has running."""

from __future__ import annotations

import pytest

from trackerlab import broker
from trackerlab.broker import host
from trackerlab.jvmcheck.pulsar.maven import MavenUnavailable

#: The release the live tests run: the newest runnable one (CI resolves it in ``.ci/run``).
VERSION = broker.DEFAULT_VERSION


@pytest.fixture(scope="session")
def available() -> host.HostBuild:
    """The release's broker class path and host build; skips, naming what is missing."""
    try:
        broker.prepare(VERSION)
        return host.build(VERSION)
    except broker.BrokerUnavailable as exc:
        pytest.skip(str(exc))
    except MavenUnavailable as exc:
        pytest.skip(f"the broker host cannot be built: {exc}")


@pytest.fixture
def built(available: host.HostBuild) -> host.HostBuild:
    """:func:`available` under the name the safety tests give it."""
    return available


def running_brokers() -> list[str]:
    """The run folders of the brokers trackerlab started that still run."""
    return [str(p) for p in broker.runs() if broker.status(p).running]
