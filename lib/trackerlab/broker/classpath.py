"""A standalone broker's class path at one release, resolved by Maven from ``maven/pom.xml``.

``resolve(release)`` runs, in a cache folder of its own
(``$TRACKERLAB_CACHE/pulsar/broker-<version>-<hash>``)::

    mvn -B -f broker/maven/pom.xml -s jvmcheck/pulsar/maven/settings.xml \\
        -Dpulsar.version=V -Dtrackerlab.build.dir=D dependency:build-classpath

(the settings send every repository to Maven Central; the jars land in ``~/.m2``) and keeps
the class path while the pom is unchanged. Nothing is compiled. Failures are
:mod:`trackerlab.jvmcheck.pulsar.maven`'s: :class:`MavenUnavailable` names what is missing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from trackerlab.broker.versions import BrokerRelease
from trackerlab.core.paths import cache_dir
from trackerlab.jvmcheck.pulsar import maven

__all__ = [
    "MAVEN_DIR",
    "BrokerClassPath",
    "build_dir",
    "cached",
    "listed_jars",
    "maven_into",
    "resolve",
]

MAVEN_DIR = Path(__file__).resolve().parent / "maven"


@dataclass(frozen=True)
class BrokerClassPath:
    """The jars of a release's standalone broker, in Maven's order."""

    version: str
    jars: tuple[Path, ...]
    seconds: float  # resolution time (0.0 when cached)

    def __str__(self) -> str:
        return os.pathsep.join(map(str, self.jars))

    def jar(self, artifact: str) -> Path | None:
        """The jar of ``artifact`` (``pulsar-broker``, ``pulsar-opentelemetry``...)."""
        for jar in self.jars:
            if jar.parent.parent.name == artifact:
                return jar
        return None


def _fingerprint(release: BrokerRelease) -> str:
    digest = hashlib.sha256((MAVEN_DIR / "pom.xml").read_bytes())
    digest.update(maven.SETTINGS.read_bytes())
    digest.update(repr(sorted(release.maven_properties().items())).encode())
    return digest.hexdigest()[:12]


def build_dir(release: BrokerRelease) -> Path:
    """``$TRACKERLAB_CACHE/pulsar/broker-<version>-<hash of pom, settings, properties>``."""
    return cache_dir() / "pulsar" / f"broker-{release.version}-{_fingerprint(release)}"


def listed_jars(listing: Path) -> tuple[Path, ...] | None:
    """The jars a ``dependency:build-classpath`` listing names, or None when the listing is
    missing, empty, or names a jar no longer in ``~/.m2``. O(jars)."""
    if not listing.is_file():
        return None
    jars = tuple(Path(p) for p in listing.read_text().strip().split(os.pathsep) if p)
    if not jars or not all(j.is_file() for j in jars):
        return None
    return jars


def maven_into(
    target: Path, prefix: str, pom: Path, goals: list[str], release: BrokerRelease
) -> None:
    """Run Maven's ``goals`` on ``pom`` for ``release`` in a fresh folder beside ``target``,
    then move it to ``target`` (a failed run leaves the previous ``target`` alone) and remove
    older builds named ``<prefix>-<version>-*``. Raises what
    :func:`trackerlab.jvmcheck.pulsar.maven.run_maven` raises."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{prefix}-{release.version}-", dir=target.parent))
    log = target.parent / f"maven-{prefix}-{release.version}.log"
    props = {**release.maven_properties(), "trackerlab.build.dir": str(work)}
    args = ["-f", str(pom), *(f"-D{k}={v}" for k, v in props.items())]
    try:
        maven.run_maven([*args, *goals], release.version, log, work)
        shutil.rmtree(target, ignore_errors=True)
        work.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for old in target.parent.glob(f"{prefix}-{release.version}-*"):
        if old != target and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


def cached(release: BrokerRelease) -> BrokerClassPath | None:
    """The resolved class path, if one is cached and every jar is still in ``~/.m2``."""
    jars = listed_jars(build_dir(release) / "classpath.txt")
    return None if jars is None else BrokerClassPath(release.version, jars, 0.0)


def resolve(release: BrokerRelease) -> BrokerClassPath:
    """The release's broker class path, resolving it with Maven unless cached. Raises
    :class:`~trackerlab.jvmcheck.pulsar.maven.MavenUnavailable` (no ``mvn``, no Central, an
    artifact Central does not serve) or ``HarnessBuildFailed`` (any other Maven failure)."""
    found = cached(release)
    if found is not None:
        return found
    target = build_dir(release)
    t0 = time.perf_counter()
    maven_into(target, "broker", MAVEN_DIR / "pom.xml", ["dependency:build-classpath"], release)
    found = cached(release)
    if found is None:
        raise maven.HarnessBuildFailed(
            f"Maven finished but left no broker class path for {release.version} "
            f"(log: {target.parent / f'maven-broker-{release.version}.log'})"
        )
    return BrokerClassPath(release.version, found.jars, time.perf_counter() - t0)
