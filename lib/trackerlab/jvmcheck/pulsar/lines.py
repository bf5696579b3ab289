"""Which released build of each Pulsar line trackerlab resolves from Maven Central.

For each line the newest patch whose ``pulsar-broker``, ``pulsar-client-original`` and
``pulsar-common`` resolve here with their dependencies (``maven/pom.xml``, checked on
2026-11-27 against the Central this project's machines reach; ``docs/real-pulsar.md`` lists
what is not served). Central lists many patches without serving their jars: the version
chosen is the newest one that resolves, not the newest one released.
"""

from __future__ import annotations

from dataclasses import dataclass

from trackerlab.core.errors import UsageError

__all__ = ["BUILDS", "CI_BUILDS", "PulsarBuild", "select_builds"]


@dataclass(frozen=True)
class PulsarBuild:
    """One release resolved from Central; ``client_only`` when its broker jar is not served."""

    line: str
    version: str
    why: str
    client_only: bool = False


BUILDS: tuple[PulsarBuild, ...] = (
    PulsarBuild("2.10", "2.10.5", "2.10.6 has only pulsar-client and pulsar-common on Central"),
    PulsarBuild("2.11", "2.11.0", "pulsar-broker is served at 2.11.0 only (2.11.1–2.11.4: "
                "client and common only)"),
    PulsarBuild("3.0", "3.0.7", "pulsar-broker 3.0.8–3.0.17 are not served"),
    PulsarBuild("3.3", "3.3.6", "pulsar-broker 3.3.7–3.3.9 are not served"),
    PulsarBuild("4.0", "4.0.1", "the 4.0.1–4.0.5 time-bucket tracker: 4.0.1 is the only one of "
                "them whose managed-ledger and pulsar-broker-common Central serves"),
    PulsarBuild("4.0", "4.0.8", "the newest 4.0.x whose pulsar-broker is served (4.0.9–4.0.14: "
                "not served)"),
    PulsarBuild("4.1", "4.1.1", "no pulsar-broker 4.1.x is served: client and common only",
                client_only=True),
    PulsarBuild("4.2", "4.2.4", "pulsar-broker 4.2.5 is not served"),
)  # fmt: skip
#: What CI checks: the newest release and one line before 4.0.
CI_BUILDS = ("4.2.4", "3.3.6")


def select_builds(version: str) -> tuple[PulsarBuild, ...]:
    """``all``, a version of :data:`BUILDS` or a line (its builds); else a one-line
    UsageError listing the known ones."""
    text = version.strip()
    if text == "all":
        return BUILDS
    chosen = tuple(b for b in BUILDS if text in (b.version, b.line))
    if not chosen:
        known = ", ".join(b.version for b in BUILDS)
        raise UsageError(
            f"unknown --pulsar {text!r}; known: all, {known} (or a line: 2.10, 2.11, 3.0, 3.3, "
            "4.0, 4.1, 4.2)"
        )
    return chosen
