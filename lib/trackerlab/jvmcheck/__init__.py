"""Real-JVM measurement: build Java objects in a HotSpot JVM and compare them with the layout
model of :mod:`trackerlab.sizing` (``trackerlab jvm-check``).

- :mod:`~trackerlab.jvmcheck.probe`: the probe JVM (an Instrumentation agent compiled from
  ``jvmcheck/java/*.java``, started through pyspark's launcher);
- :mod:`~trackerlab.jvmcheck.probe_cases`: the named cases, each a Java structure and its model.
"""

from trackerlab.jvmcheck.probe import (
    JvmProbe,
    ProbeBuildFailed,
    ProbeMissing,
    ProbeUnavailable,
    get_probe,
)

__all__ = ["JvmProbe", "ProbeBuildFailed", "ProbeMissing", "ProbeUnavailable", "get_probe"]
