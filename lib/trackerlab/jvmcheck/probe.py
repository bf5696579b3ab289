"""Real-JVM probe: build Java objects in a HotSpot JVM started through pyspark and measure them.

Two measurements:

- **exact**: ``trackerlab.probe.SizeAgent.deepSize``, a small Instrumentation agent
  (``trackerlab/java/SizeAgent.java``): the sum of ``Instrumentation.getObjectSize`` over every
  object reachable through non-static reference fields and ``Object[]`` elements, each counted
  once -- the quantity JOL's ``GraphLayout.totalSize`` reports;
- **estimator**: ``org.apache.spark.util.SizeEstimator.estimate``. It computes layouts itself
  and (a) samples arrays of more than 400 elements (``ARRAY_SIZE_FOR_SAMPLING = 400``,
  ``ARRAY_SAMPLE_SIZE = 100``, spark ``core/src/main/scala/org/apache/spark/util/
  SizeEstimator.scala``), so object arrays with nulls or unequal elements are misestimated;
  (b) packs each class's fields separately, so it misses JDK 15+ gap filling across the class
  hierarchy (fastutil ``Long2LongAVLTreeMap.Entry``: 48 B estimated, 40 B real); (c) assumes a
  16-byte header whenever compressed oops are off, while JDK 15+ keeps compressed class
  pointers and a 12-byte header (JDK-8241825).

The JVM is a pyspark gateway JVM of its own (``pyspark.java_gateway.launch_gateway``, the same
``spark-submit`` launcher a SparkSession uses, but without a SparkContext), so it never clashes
with a Spark session of the same Python process and both oops layouts can run side by side.
The Java sources are compiled with the system ``javac`` on first use into a cache folder
outside the repository (``$TRACKERLAB_CACHE``, else ``$XDG_CACHE_HOME/trackerlab``, else
``~/.cache/trackerlab``). The real fastutil jar (Debian ``libfastutil-java``,
``/usr/share/java/fastutil.jar``; ``$TRACKERLAB_FASTUTIL_JAR`` overrides) is put on the class
path when present.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trackerlab.core.interrupts import sigint_held
from trackerlab.core.java_runtime import java_executable, require_java
from trackerlab.core.log4j import quiet_log4j2
from trackerlab.core.paths import cache_dir
from trackerlab.sizing.jvm import JvmLayout

FASTUTIL_JAR = Path("/usr/share/java/fastutil.jar")
FASTUTIL_PACKAGE = "it.unimi.dsi.fastutil.longs."
AGENT_CLASS = "trackerlab.probe.SizeAgent"
MEASURES = ("exact", "estimator")


class ProbeUnavailable(RuntimeError):
    """The probe JVM cannot be built or started; the message is one line and says why.

    :class:`ProbeMissing` is the kind where something outside the repository is missing (the
    test suite skips for it, and for :class:`~trackerlab.core.java_runtime.JavaMissing`, only);
    :class:`ProbeBuildFailed` and every other instance are a defect or a broken set-up here.
    """


class ProbeMissing(ProbeUnavailable):
    """Something outside the repository is missing: a JDK's ``javac`` (a JRE alone)."""


class ProbeBuildFailed(ProbeUnavailable):
    """``javac`` rejected trackerlab's own Java sources: a defect of the repository."""


# --------------------------------------------------------------------------- build


def fastutil_jar() -> Path | None:
    """The real fastutil jar, if installed (``$TRACKERLAB_FASTUTIL_JAR`` or Debian's)."""
    path = Path(os.environ.get("TRACKERLAB_FASTUTIL_JAR", FASTUTIL_JAR))
    return path if path.is_file() else None


def pyspark_jars() -> Path:
    """pyspark's ``jars/`` folder (RoaringBitmap 1.6.10, parquet's shaded fastutil, Spark)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent / "jars"


def javac_executable() -> str | None:
    """``javac`` next to the ``java`` pyspark uses, else on PATH."""
    java = java_executable()
    if java:
        candidate = Path(java).resolve().parent / "javac"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("javac")


def _java_sources() -> list[tuple[str, bytes]]:
    folder = Path(__file__).resolve().parent / "java"
    return sorted((p.name, p.read_bytes()) for p in folder.iterdir() if p.name.endswith(".java"))


def probe_jar() -> Path:
    """Compile ``trackerlab/java/*.java`` (once per source/JDK/pyspark version) into an agent
    jar with ``Premain-Class: trackerlab.probe.SizeAgent``; return its path. Concurrent callers
    (pytest-xdist workers) each build in a temporary folder; the first rename wins.
    Raises :class:`ProbeMissing` without ``javac``, :class:`ProbeBuildFailed` when the sources
    do not compile, :class:`ProbeUnavailable` when the cache folder cannot be written."""
    javac = javac_executable()
    if javac is None:
        raise ProbeMissing(
            "javac not found: the JVM probe compiles its Java helpers; install a JDK "
            "(Debian/Ubuntu: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"
        )
    sources = _java_sources()
    version = subprocess.run([javac, "-version"], capture_output=True, text=True).stdout
    digest = hashlib.sha256(version.encode())
    for name, text in sources:
        digest.update(name.encode() + b"\0" + text)
    digest.update(str(sorted(p.name for p in pyspark_jars().glob("*.jar"))).encode())
    target = cache_dir() / "java" / digest.hexdigest()[:16]
    jar = target / "trackerlab-probe.jar"
    if jar.is_file():
        return jar
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="build-", dir=target.parent))
    except OSError as exc:
        raise ProbeUnavailable(
            f"cannot write the probe's build cache {target.parent} ({exc.strerror}); "
            "set TRACKERLAB_CACHE to a writable folder"
        ) from None
    try:
        src = work / "src"
        src.mkdir()
        for name, text in sources:
            (src / name).write_bytes(text)
        classes = work / "classes"
        cmd = [javac, "-nowarn", "-d", str(classes), "-cp", f"{pyspark_jars()}/*"]
        proc = subprocess.run(cmd + sorted(map(str, src.glob("*.java"))), capture_output=True)
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip().splitlines()
            raise ProbeBuildFailed(f"javac failed: {err[0] if err else proc.returncode}")
        _write_jar(classes, work / "trackerlab-probe.jar")
        shutil.rmtree(src)
        shutil.rmtree(classes)
        with contextlib.suppress(OSError):  # another process finished first
            work.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return jar


def _write_jar(classes: Path, jar: Path) -> None:
    manifest = f"Manifest-Version: 1.0\r\nPremain-Class: {AGENT_CLASS}\r\n\r\n"
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("META-INF/MANIFEST.MF", manifest)
        for path in sorted(classes.rglob("*.class")):
            z.write(path, path.relative_to(classes).as_posix())


def probe_spark_conf(uncompressed_oops: bool = False) -> dict[str, str]:
    """Spark settings that load the probe into a driver JVM: a Spark session builder can add
    them (then :meth:`JvmProbe.attach`), or :meth:`JvmProbe.start` uses them itself."""
    jar = probe_jar()
    options = [
        f"-javaagent:{jar}",
        f"-Dlog4j2.configurationFile={quiet_log4j2()}",
        # the agent reads private fields of JDK classes: StampedLock and ReentrantLock live in a
        # package Spark's launcher does not open (it opens java.util.concurrent and java.nio)
        "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
    ]
    if uncompressed_oops:
        options.append("-XX:-UseCompressedOops")
    class_path = [str(jar)] + ([str(fastutil_jar())] if fastutil_jar() else [])
    return {
        "spark.master": "local[1]",
        "spark.ui.enabled": "false",
        "spark.driver.extraJavaOptions": " ".join(options),
        "spark.driver.extraClassPath": os.pathsep.join(class_path),
    }


# --------------------------------------------------------------------------- the probe


@dataclass
class JvmProbe:
    """A driver JVM with the probe agent: builds structures and measures their deep size."""

    jvm: Any
    gateway: Any = None
    started_seconds: float = 0.0
    log: Path | None = None
    layout: JvmLayout = field(init=False)
    java_version: str = field(init=False)
    fastutil: bool = field(init=False)

    def __post_init__(self) -> None:
        try:
            available = self.jvm.trackerlab.probe.SizeAgent.available()
        except Exception as exc:
            raise ProbeUnavailable(
                "this JVM has no trackerlab probe on its class path; start it with "
                "probe_spark_conf() settings"
            ) from exc
        if not available:
            raise ProbeUnavailable("the probe classes are loaded but not as a -javaagent")
        cls = self.jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean")
        bean = self.jvm.java.lang.management.ManagementFactory.getPlatformMXBean(cls)

        def flag(name: str) -> bool:
            return bean.getVMOption(name).getValue() == "true"

        self.layout = JvmLayout(flag("UseCompressedOops"), flag("UseCompressedClassPointers"))
        self.java_version = self.jvm.java.lang.System.getProperty("java.version")
        try:
            self.jvm.java.lang.Class.forName(FASTUTIL_PACKAGE + "Long2LongOpenHashMap")
            self.fastutil = True
        except Exception:
            self.fastutil = False

    @classmethod
    def start(cls, uncompressed_oops: bool = False) -> JvmProbe:
        """Launch a gateway JVM (``spark-submit pyspark-shell``, ``local[1]``, UI off; its output,
        logs at ERROR, goes to ``jvm-<pid>.log`` in the cache folder, removed by :meth:`close`).
        Raises JavaMissing, or ProbeUnavailable (:class:`ProbeMissing` without ``javac``)."""
        if "PYSPARK_GATEWAY_PORT" in os.environ:  # launch_gateway would reuse that JVM
            raise ProbeUnavailable(
                "PYSPARK_GATEWAY_PORT is set, so pyspark would reuse its JVM; start that session "
                "with probe_spark_conf() settings and use JvmProbe.attach(spark)"
            )
        require_java()
        conf_entries = probe_spark_conf(uncompressed_oops)
        from pyspark import SparkConf
        from pyspark.java_gateway import launch_gateway

        conf = SparkConf(loadDefaults=False)
        for key, value in conf_entries.items():
            conf.set(key, value)
        suffix = "-uncompressed" if uncompressed_oops else ""
        log = probe_jar().parent / f"jvm-{os.getpid()}{suffix}.log"
        t0 = time.perf_counter()
        with sigint_held() as interrupted, open(log, "wb") as out:
            try:
                gateway = launch_gateway(conf, popen_kwargs={"stdout": out, "stderr": out})
            except Exception as exc:
                tail = log.read_text(errors="replace").strip().splitlines()[-1:] or [str(exc)]
                raise ProbeUnavailable(
                    f"the probe JVM did not start: {tail[0]} (full log: {log})"
                ) from exc
            if interrupted():  # Ctrl-C while it started: stop it, then interrupt
                _stop_gateway(gateway)
                raise KeyboardInterrupt
        try:
            probe = cls(gateway.jvm, gateway, time.perf_counter() - t0, log)
        except ProbeUnavailable:
            _stop_gateway(gateway)
            raise
        atexit.register(probe.close)
        return probe

    @classmethod
    def attach(cls, spark: Any) -> JvmProbe:
        """Reuse the driver JVM of a SparkSession started with :func:`probe_spark_conf`."""
        return cls(spark.sparkContext._jvm)

    def close(self) -> None:
        """Stop a JVM this probe started (closing its stdin ends the gateway server)."""
        gateway, self.gateway = self.gateway, None
        if gateway is not None:
            _stop_gateway(gateway)
        if self.log is not None:
            self.log.unlink(missing_ok=True)

    # ----------------------------------------------------------------- measuring

    def exact(self, obj: Any) -> int:
        """Deep size by the Instrumentation agent (exact, JOL ``GraphLayout.totalSize``)."""
        return int(self.jvm.trackerlab.probe.SizeAgent.deepSize(obj))

    def estimate(self, obj: Any) -> int:
        """``SizeEstimator.estimate`` (samples arrays of more than 400 elements)."""
        return int(self.jvm.org.apache.spark.util.SizeEstimator.estimate(obj))

    def measure(self, obj: Any, how: str = "exact") -> int:
        if how not in MEASURES:
            raise ValueError(f"how must be one of {MEASURES}, got {how!r}")
        return self.exact(obj) if how == "exact" else self.estimate(obj)

    # ----------------------------------------------------------------- building

    @property
    def builders(self) -> Any:
        """The Java helper class ``trackerlab.probe.Probe`` (see ``java/Probe.java``)."""
        return self.jvm.trackerlab.probe.Probe

    def longs(self, values: np.ndarray | list[int]) -> Any:
        """A Java ``long[]`` with these values, in this order (one py4j call)."""
        data = np.asarray(values, dtype=np.int64).astype(">i8").tobytes()
        return self.builders.fromBytes(bytearray(data))

    def seq(self, start: int, count: int, step: int = 1) -> Any:
        """A Java ``long[]``: start, start + step, ... (built in the JVM)."""
        return self.builders.seq(start, count, step)


def _stop_gateway(gateway: Any) -> None:
    proc = getattr(gateway, "proc", None)
    with contextlib.suppress(Exception):  # the JVM may already be gone
        gateway.shutdown()
    if proc is not None:
        if proc.stdin:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except (subprocess.TimeoutExpired, KeyboardInterrupt):  # a second Ctrl-C: no waiting
            proc.kill()


_PROBES: dict[bool, JvmProbe] = {}
_LOCK = threading.Lock()


def get_probe(uncompressed_oops: bool = False) -> JvmProbe:
    """The process-wide probe for this layout, started on first use."""
    with _LOCK:
        probe = _PROBES.get(uncompressed_oops)
        if probe is None or probe.gateway is None:
            probe = _PROBES[uncompressed_oops] = JvmProbe.start(uncompressed_oops)
        return probe
