"""trackerlab: models, measures and reports Apache Pulsar's message-tracking structures.

The package is a small library behind thin notebooks, in layers that import one way
(``docs/architecture.md``; ``tests/test_layers.py`` enforces it), top to bottom:

- ``cli``, ``commands``: the ``trackerlab`` command line;
- ``bench``, ``reporting``: benchmarks; profiles, papermill execution and publishing;
- ``experiments``: notebook back-ends and the reproduction of every published number;
- ``catalog``, ``spark``: every design under one name; the Spark sweep engine;
- ``models``: one package per Pulsar component;
- ``jvmcheck``: real-JVM measurement of the layout model;
- ``sizing``: Python-real bytes, JVM-equivalent bytes and theory, never mixed;
- ``workloads``: message streams, delay distributions, ledger rollover, units;
- core: ``errors``, ``params``, ``paths``, ``rng``, ``provenance``, ``javacheck``, ``log4j``,
  ``releases`` (the Pulsar release table: ``releases.resolve("4.0.7").design("delayed")``).

The names below are the public face for users and notebooks::

    from trackerlab import CATALOG, SizeRequest, Workload, size
    size("time-buckets", SizeRequest(Workload.from_options(1_000_000, 10, delay="fixed:1h")))
"""

from trackerlab.catalog import CATALOG, SizeRequest, SizeResult, size
from trackerlab.core.errors import UsageError
from trackerlab.workloads import DelaySpec, PatternSpec, Workload

__version__ = "0.1.0"

__all__ = [
    "CATALOG",
    "DelaySpec",
    "PatternSpec",
    "SizeRequest",
    "SizeResult",
    "UsageError",
    "Workload",
    "__version__",
    "size",
]
