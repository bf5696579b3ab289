"""trackerlab: models, measures and reports Apache Pulsar's message-tracking structures.

The package is a small library behind thin notebooks:

- ``workloads``: message streams as numpy chunks;
- ``models``: one module per Pulsar component, each naming the Java class it follows;
- ``sizing``: Python-real bytes, JVM-equivalent bytes and theory, never mixed;
- ``experiments``: the published numbers and the functions that reproduce them;
- ``reporting``: profiles, papermill execution and atomic publishing of ``reports/``;
- ``spark``: large experiments on PySpark.
"""

__version__ = "0.1.0"
