"""trackerlab: models, measures and reports Apache Pulsar's message-tracking structures.

The package is a small library behind thin notebooks, in layers that import one way
(``docs/architecture.md``; ``tests/test_layers.py`` enforces it), top to bottom:

- ``commands``: the ``trackerlab`` command line (``commands.cli``) and the ``spark-submit``
  entry script;
- ``bench``, ``reporting``: benchmarks; profiles, papermill execution and publishing;
- ``experiments``: notebook back-ends and the reproduction of every published number;
- ``catalog``, ``planner``, ``spark``: every design under one name; the capacity planner;
  the Spark sweep engine;
- ``models``: one package per Pulsar component, and ``models.pulsar_releases``, the release
  table (``pulsar_releases.resolve("4.0.7").design("delayed")``);
- ``jvmcheck``, ``broker``: real-JVM measurement of the layout model; a real broker on
  loopback;
- ``sizing``: Python-real bytes, JVM-equivalent bytes and theory, never mixed;
- ``workloads``: message streams, delay distributions, ledger rollover, units;
- ``core``: what every layer uses (errors, parameter checks, paths, seeded randomness,
  provenance, durable writes, interrupts, budgets, strict JSON, the Java runtime check).

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
