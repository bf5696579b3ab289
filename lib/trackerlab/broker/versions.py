"""Which Pulsar releases trackerlab can run as a standalone broker, and how to name one.

A release runs when Maven Central serves its ``pulsar-broker`` with the whole dependency tree
the standalone loads (``broker/maven/pom.xml``). The candidates are the broker builds of
:data:`trackerlab.jvmcheck.pulsar.lines.BUILDS`; of those, checked on 2026-11-27:

- 4.2.4, 4.0.1, 3.0.7 and 2.11.0 resolve as released;
- 4.0.8 resolves with ``pulsar-opentelemetry`` 4.0.1: Central does not serve 4.0.8's, which
  the broker loads at start (``PulsarService`` builds its OpenTelemetry service);
- 3.3.6 does not run: Central serves no ``pulsar-opentelemetry`` of the 3.3 line;
- 2.10.5 is left out: its standalone keeps its metadata in ZooKeeper (PIP-117's RocksDB
  metadata came in 2.11), a server trackerlab does not run;
- 4.1 has no broker: Central serves no ``pulsar-broker`` 4.1.x (the line is blocked).
"""

from __future__ import annotations

from dataclasses import dataclass

from trackerlab.core.errors import UsageError
from trackerlab.jvmcheck.pulsar.lines import BUILDS

__all__ = ["DEFAULT_VERSION", "RELEASES", "BrokerRelease", "select_release"]


@dataclass(frozen=True)
class BrokerRelease:
    """A release whose standalone broker trackerlab runs."""

    line: str
    version: str
    #: ``pulsar-opentelemetry`` taken from another patch of the line (None: the release's own)
    opentelemetry: str | None = None

    def maven_properties(self) -> dict[str, str]:
        """The ``-D`` properties of ``broker/maven/pom.xml`` for this release."""
        props = {"pulsar.version": self.version}
        if self.opentelemetry:
            props["pulsar.opentelemetry.version"] = self.opentelemetry
        return props


#: Releases that do not run, with the reason (one line each).
NOT_RUNNABLE: dict[str, str] = {
    "2.10": "its standalone keeps metadata in ZooKeeper (RocksDB metadata came in 2.11)",
    "3.3": "Maven Central serves no pulsar-opentelemetry 3.3.x, which its broker loads",
    "4.1": "Maven Central serves no pulsar-broker 4.1.x (the line is blocked)",
}
_OPENTELEMETRY = {"4.0.8": "4.0.1"}
RELEASES: tuple[BrokerRelease, ...] = tuple(
    BrokerRelease(b.line, b.version, _OPENTELEMETRY.get(b.version))
    for b in BUILDS
    if not b.client_only and b.line not in NOT_RUNNABLE
)
#: The newest release that runs.
DEFAULT_VERSION = RELEASES[-1].version


def select_release(text: str | None = None) -> BrokerRelease:
    """A runnable release by version (``4.2.4``) or line (``4.0``: its newest build); None or
    empty gives :data:`DEFAULT_VERSION`. Anything else is a one-line UsageError. O(releases)."""
    name = (text or DEFAULT_VERSION).strip()
    for release in RELEASES:
        if name == release.version:
            return release
    in_line = [r for r in RELEASES if r.line == name]
    if in_line:
        return in_line[-1]
    line = ".".join(name.split(".")[:2])
    known = ", ".join(r.version for r in RELEASES)
    if line in NOT_RUNNABLE:
        raise UsageError(
            f"Pulsar {name} cannot run as a broker: {NOT_RUNNABLE[line]}; runnable: {known}"
        )
    raise UsageError(f"unknown --pulsar-version {name!r}; runnable: {known} (or a line: 4.0, 4.2)")
