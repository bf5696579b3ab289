"""Pulsar's own classes from its released jars: Maven resolution per release line
(:mod:`.maven`, :mod:`.lines`) and the harness JVM that builds and measures them with JOL
(:mod:`.harness`; Java sources in ``maven/src/main/java/trackerlab/pulsar``)."""

from trackerlab.jvmcheck.pulsar.harness_runner import (
    HarnessCase,
    HarnessFailed,
    Measured,
    facts,
    run,
)
from trackerlab.jvmcheck.pulsar.lines import BUILDS, CI_BUILDS, PulsarBuild, select_builds
from trackerlab.jvmcheck.pulsar.maven import (
    ClassPath,
    HarnessBuildFailed,
    MavenUnavailable,
    build,
)

__all__ = [
    "BUILDS",
    "CI_BUILDS",
    "ClassPath",
    "HarnessBuildFailed",
    "HarnessCase",
    "HarnessFailed",
    "MavenUnavailable",
    "Measured",
    "PulsarBuild",
    "build",
    "facts",
    "run",
    "select_builds",
]
