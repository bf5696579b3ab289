"""The one place that builds trackerlab's Spark session: embedded or on a cluster.

:func:`get_session` follows the spec's pattern (anchors.md §5): the master comes from, in
order, the ``master`` argument (``--master``), the configuration ``spark-submit`` passed
(``SparkConf`` then holds ``spark.master``), else an embedded ``local[*]``. So the same entry
point runs in a notebook, from ``trackerlab sweep`` and under
``spark-submit --master spark://host:7077``.

Defaults, each applied only where the configuration does not set it (``setIfMissing``), suit
the project machines (2 cores, 24 GiB): see :data:`DEFAULTS`. Every setting lives here; the
JVM launcher of ``trackerlab jvm-check`` (:mod:`trackerlab.jvmcheck.probe`) starts its own
JVM without a SparkContext and does not use them.

Failures are one-line :class:`~trackerlab.errors.UsageError` messages raised before any
output is touched: Java missing or too old (checked first), a malformed master URL, a
``spark://`` or ``k8s://`` master that does not answer a TCP connect within
:data:`CONNECT_TIMEOUT_S` seconds per address, or a cluster that registers no executor
within :data:`EXECUTOR_WAIT_S` seconds.

The driver JVM's stderr goes through this process, which drops the one line every start
prints, ``WARNING: Using incubator modules: jdk.incubator.vector`` (:data:`JVM_STARTUP_NOISE`);
everything else is passed on unchanged.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from trackerlab.errors import UsageError
from trackerlab.log4j import quiet_log4j2

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Session settings applied when the configuration lacks them.
DEFAULTS: dict[str, str] = {
    # local mode runs the tasks inside the driver JVM; the heavy work is in Python workers
    # (numpy), so 3 GiB of heap leaves the rest of 24 GiB to them and to other processes.
    "spark.driver.memory": "3g",
    "spark.driver.maxResultSize": "1g",
    # 2 cores: a few shuffle partitions (the default 200 costs more than the data it holds)
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.adaptive.enabled": "true",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.maxRecordsPerBatch": str(1 << 16),
    # SplitMix64 in Spark SQL needs two's-complement wraparound of long multiplication,
    # which ANSI mode (the Spark 4 default) turns into an overflow error.
    "spark.sql.ansi.enabled": "false",
    "spark.python.worker.reuse": "true",
    # glibc malloc in the Python workers: serve arrays up to 32 MiB from the heap and keep
    # freed memory (no mmap/munmap churn, no page faults on every numpy temporary); measured
    # on 5e6 random-delay messages: 3.3 s -> 1.3 s for a worker's first task
    "spark.executorEnv.MALLOC_MMAP_THRESHOLD_": str(32 << 20),
    "spark.executorEnv.MALLOC_TRIM_THRESHOLD_": str(4 << 30),
    # workers run the interpreter of the driver, with numpy/pyroaring/trackerlab (and
    # $PYSPARK_PYTHON defaults to it, see get_session)
    "spark.pyspark.python": sys.executable,
}
CONNECT_TIMEOUT_S = 10.0
EXECUTOR_WAIT_S = 120.0
DEFAULT_APP_NAME = "trackerlab"
_LOCAL = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?$")


def check_master(master: str) -> str:
    """Validate a master URL; for ``spark://`` and ``k8s://`` masters, connect to each address
    (at most :data:`CONNECT_TIMEOUT_S` s each). UsageError naming the URL otherwise."""
    master = master.strip()
    if _LOCAL.match(master) or master == "yarn":
        return master
    if master.startswith("spark://"):
        addresses = []
        for part in master.removeprefix("spark://").split(","):
            host, _, port = part.partition(":")
            if not host or not port.isdigit():
                raise UsageError(f"--master {master!r}: expected spark://HOST:PORT[,HOST:PORT]")
            addresses.append((host, int(port)))
    elif master.startswith("k8s://"):
        url = urlsplit(master.removeprefix("k8s://"))
        if not url.hostname:
            raise UsageError(f"--master {master!r}: expected k8s://https://HOST:PORT")
        addresses = [(url.hostname, url.port or (443 if url.scheme == "https" else 80))]
    else:
        raise UsageError(
            f"--master {master!r}: use local, local[N], local[*], spark://HOST:PORT, "
            "k8s://https://HOST:PORT or yarn"
        )
    for host, port in addresses:
        try:
            with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
                pass
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise UsageError(
                f"cannot reach Spark master {master} ({host}:{port}: {reason}, "
                f"waited up to {CONNECT_TIMEOUT_S:.0f} s); nothing was written"
            ) from None
    return master


def get_session(master: str | None = None, app_name: str = DEFAULT_APP_NAME) -> SparkSession:
    """The active session, or a new one: ``master`` if given, else the configured
    ``spark.master`` (spark-submit), else ``local[*]``; :data:`DEFAULTS` where unset."""
    from trackerlab.javacheck import JavaMissing, require_java

    try:
        require_java()
    except JavaMissing as exc:
        raise UsageError(str(exc)) from None
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    # pyspark starts workers with $PYSPARK_PYTHON (spark-submit sets it from
    # spark.pyspark.python); by default, this interpreter and its packages
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = SparkConf()
    if master:
        conf.setMaster(check_master(master))
    elif not conf.contains("spark.master"):
        conf.setMaster("local[*]")
    else:
        check_master(conf.get("spark.master"))
    conf.setIfMissing("spark.app.name", app_name)
    for key, value in DEFAULTS.items():
        conf.setIfMissing(key, value)
    conf.setIfMissing(
        "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{quiet_log4j2()}"
    )
    try:
        _start_quiet_gateway(conf)
        spark = SparkSession.builder.config(conf=conf).getOrCreate()
    except Exception as exc:  # a JVM that did not start, a master Spark refused
        used = conf.get("spark.master")
        hint = "" if _LOCAL.match(used) else f" (is {used} a Spark master with free workers?)"
        raise UsageError(f"cannot start Spark ({used}): {_java_reason(exc)}{hint}") from None
    spark.sparkContext.setLogLevel("ERROR")
    wait_for_executors(spark)
    ship_package(spark)
    for key in ("spark.sql.ansi.enabled", "spark.sql.execution.arrow.maxRecordsPerBatch"):
        spark.conf.set(key, conf.get(key))  # runtime settings also on a reused session
    return spark


#: What the JVM prints on every start because Spark adds ``--add-modules=jdk.incubator.vector``
#: (``JavaModuleOptions``); Java has no switch to silence it.
JVM_STARTUP_NOISE = re.compile(rb"^WARNING: Using incubator modules: jdk\.incubator\.vector\s*$")


def _forward_stderr(stream) -> None:
    """Copy the JVM's stderr to ours line by line, without its start-up incubator warning."""
    for line in iter(stream.readline, b""):
        if not JVM_STARTUP_NOISE.match(line):
            os.write(2, line)


def _start_quiet_gateway(conf) -> None:
    """Start the JVM that pyspark would start, with its stderr piped through
    :func:`_forward_stderr`. Nothing to do when this process already has a gateway, or when
    ``spark-submit`` started the JVM (``PYSPARK_GATEWAY_PORT``)."""
    import subprocess
    import threading

    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
    threading.Thread(
        target=_forward_stderr, args=(gateway.proc.stderr,), name="jvm-stderr", daemon=True
    ).start()
    SparkContext(conf=conf, gateway=gateway)


def _java_reason(exc: BaseException) -> str:
    """First line of the Java exception behind a py4j error (py4j's own first line only says
    which call failed), else of ``exc``."""
    text = ""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            text = str(java.toString())
        except Exception:  # the gateway may be gone too
            text = ""
    text = (text or str(exc)).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def wait_for_executors(spark: SparkSession, timeout_s: float = EXECUTOR_WAIT_S) -> None:
    """On a cluster master, wait (at most ``timeout_s``) until an executor has registered;
    UsageError if none did (a master that accepts connections but gives no resources would
    otherwise leave the first job waiting forever). Nothing to wait for in local mode."""
    sc = spark.sparkContext
    if sc.master.startswith("local"):
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if sc._jsc.sc().getExecutorMemoryStatus().size() > 1:  # the driver counts as one
            return
        time.sleep(1.0)
    master = sc.master
    spark.stop()
    raise UsageError(
        f"no executor registered with Spark master {master} within {timeout_s:.0f} s "
        "(no free workers, or not a Spark master); nothing was written"
    )


def ship_package(spark: SparkSession) -> Path | None:
    """On a non-local master, zip the ``trackerlab`` package and add it to the executors'
    Python path (``SparkContext.addPyFile``), once per session. None in local mode, where the
    workers import it from this interpreter's environment."""
    sc = spark.sparkContext
    if sc.master.startswith("local") or getattr(sc, "_trackerlab_shipped", None):
        return None
    import tempfile
    import zipfile

    root = Path(__file__).resolve().parents[1]  # the trackerlab package
    target = Path(tempfile.mkdtemp(prefix="trackerlab-")) / "trackerlab.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                z.write(path, Path("trackerlab") / path.relative_to(root))
    sc.addPyFile(str(target))
    sc._trackerlab_shipped = target
    return target


def stop_session() -> None:
    """Stop the active session, if any (tests, benchmarks)."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is not None:
        spark.stop()
