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

Failures are one-line :class:`~trackerlab.core.errors.UsageError` messages raised before any
output is touched: Java missing or too old (checked first; :class:`SparkJavaMissing`, the one
kind about something missing outside the repository), a malformed master URL (``local[0]``
included), a ``spark://`` or ``k8s://`` master that does not answer a TCP connect within
:data:`CONNECT_TIMEOUT_S` seconds per address, a JVM or a configuration Spark refuses, or a
cluster that registers no executor within :data:`EXECUTOR_WAIT_S` seconds.

Spark's own output stays out of the terminal: the driver JVM this module starts writes its
stdout, stderr and log4j messages to :func:`session_log` (one file per process under
``cache_dir()/logs``), and so do py4j's Python-side messages; failures name that file. A
Ctrl-C while the JVM starts is held until the start has finished (or failed), then the JVM
is stopped and ``KeyboardInterrupt`` raised: no orphan JVM, no Java stack on the terminal.
Under ``spark-submit`` the JVM is spark-submit's own and keeps its console.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from trackerlab.core.errors import UsageError
from trackerlab.core.interrupts import sigint_held
from trackerlab.core.log4j import file_log4j2, py4j_messages_to
from trackerlab.core.paths import cache_dir

if TYPE_CHECKING:
    from pyspark import SparkConf, SparkContext
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
#: How long a cluster master may take to give the session an executor
#: (``$TRACKERLAB_EXECUTOR_WAIT_S`` overrides it, e.g. in tests).
EXECUTOR_WAIT_S = float(os.environ.get("TRACKERLAB_EXECUTOR_WAIT_S", "120"))
DEFAULT_APP_NAME = "trackerlab"
_LOCAL = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?$")
#: ``local[N]`` and ``local[N,F]``: threads and task failures allowed.
MAX_LOCAL_THREADS = 1024
MAX_TASK_FAILURES = 100


class SparkJavaMissing(UsageError):
    """No Java that Spark can use (none, or older than 17): the message is
    :class:`~trackerlab.core.java_runtime.JavaMissing`'s. Every other start-up failure (a configuration
    Spark refuses, a driver JVM that exits, an unreachable master) is a plain UsageError."""


class _StartFailed(Exception):
    """The driver did not start; the message is the Java reason, read while the JVM answered."""


@cache
def session_log() -> Path:
    """This process's Spark log file: the driver JVM's output, log4j and py4j messages, and
    the Python traceback of a failed sweep. Created on first use."""
    folder = cache_dir() / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"spark-{stamp}-{os.getpid()}.log"
    path.touch()
    return path


def _check_local(master: str) -> None:
    match = _LOCAL.match(master)
    assert match is not None
    threads, _, failures = (match.group(2) or "1"), None, match.group(3)
    if threads != "*" and not 1 <= int(threads) <= MAX_LOCAL_THREADS:
        raise UsageError(f"--master {master!r}: local[N] needs N in 1..{MAX_LOCAL_THREADS} (or *)")
    if failures and not 1 <= int(failures[1:]) <= MAX_TASK_FAILURES:
        raise UsageError(f"--master {master!r}: local[N,F] needs F in 1..{MAX_TASK_FAILURES}")


def check_master(master: str) -> str:
    """Validate a master URL; for ``spark://`` and ``k8s://`` masters, connect to each address
    (at most :data:`CONNECT_TIMEOUT_S` s each). UsageError naming the URL otherwise."""
    master = master.strip()
    if _LOCAL.match(master):
        _check_local(master)
        return master
    if master == "yarn":
        return master
    addresses: list[tuple[str, int]]
    if master.startswith("spark://"):
        addresses = []
        for part in master.removeprefix("spark://").split(","):
            host, _, port_text = part.partition(":")
            if not host or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
                raise UsageError(f"--master {master!r}: expected spark://HOST:PORT[,HOST:PORT]")
            addresses.append((host, int(port_text)))
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


def _conf_str(conf: SparkConf, key: str) -> str:
    """``conf.get(key)`` for a key :func:`_configure` has set (``spark.master``, the
    :data:`DEFAULTS`). O(1)."""
    value = conf.get(key)
    assert value is not None, f"{key} is set by _configure"
    return value


def _master_of(sc: SparkContext) -> str:
    """A running context's master URL (always set once it started). O(1)."""
    master = sc.master
    assert master is not None, "a started SparkContext has a master"
    return master


def _configure(conf: SparkConf, master: str | None, app_name: str) -> Path:
    """Set the master (``master``, the configured one, else ``local[*]``; checked), the
    loopback binding of a machine-local run, the app name, :data:`DEFAULTS` and the driver's
    log settings, each only where unset; the session's log file."""
    if master:
        conf.setMaster(check_master(master))
    elif not conf.contains("spark.master"):
        conf.setMaster("local[*]")
    else:
        check_master(_conf_str(conf, "spark.master"))
    used = _conf_str(conf, "spark.master")
    if _LOCAL.match(used) or urlsplit(used.replace("spark://", "http://", 1)).hostname in (
        "127.0.0.1",
        "localhost",
    ):  # a machine-local run binds to the loopback only
        conf.setIfMissing("spark.driver.host", "127.0.0.1")
        conf.setIfMissing("spark.driver.bindAddress", "127.0.0.1")
    conf.setIfMissing("spark.app.name", app_name)
    for key, value in DEFAULTS.items():
        conf.setIfMissing(key, value)
    log = session_log()
    conf.setIfMissing(
        "spark.driver.extraJavaOptions",
        f"-Dlog4j2.configurationFile=file:{file_log4j2()} -Dtrackerlab.log={log}",
    )
    return log


def get_session(master: str | None = None, app_name: str = DEFAULT_APP_NAME) -> SparkSession:
    """The active session, or a new one: ``master`` if given, else the configured
    ``spark.master`` (spark-submit), else ``local[*]``; :data:`DEFAULTS` where unset."""
    from trackerlab.core.java_runtime import JavaMissing, require_java

    try:
        require_java()
    except JavaMissing as exc:
        raise SparkJavaMissing(str(exc)) from None
    from pyspark import SparkConf, SparkContext

    # pyspark starts workers with $PYSPARK_PYTHON (spark-submit sets it from
    # spark.pyspark.python); by default, this interpreter and its packages
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if "PYSPARK_GATEWAY_PORT" in os.environ:
        # under spark-submit: connect to its JVM first, so that SparkConf() reads the
        # settings spark-submit passed (--master...); without the JVM it is an empty
        # Python dict, and a cluster run silently ran on local[*]
        from pyspark import SparkContext

        SparkContext._ensure_initialized()
    conf = SparkConf()
    log = _configure(conf, master, app_name)
    py4j_messages_to(log)
    try:
        spark = _start(conf, log)
    except UsageError:
        raise
    except Exception as exc:  # a JVM that did not start, a master Spark refused
        used = _conf_str(conf, "spark.master")
        hint = "" if _LOCAL.match(used) else f" (is {used} a Spark master with free workers?)"
        raise UsageError(
            f"cannot start Spark ({used}): {_java_reason(exc)}{hint}; details in {log}"
        ) from None
    spark.sparkContext.setLogLevel("ERROR")
    _quiet_accumulator_server(spark, log)
    wait_for_executors(spark)
    ship_package(spark)
    for key in ("spark.sql.ansi.enabled", "spark.sql.execution.arrow.maxRecordsPerBatch"):
        spark.conf.set(key, _conf_str(conf, key))  # runtime settings also on a reused session
    return spark


def _quiet_accumulator_server(spark: SparkSession, log: Path) -> None:
    """pyspark's accumulator server (a ``socketserver`` in a daemon thread) prints a
    traceback to stderr when the JVM dies mid-request; send it to the session log."""
    server = getattr(spark.sparkContext, "_accumulatorServer", None)
    if server is None:
        return

    def handle_error(request: object, client_address: object) -> None:
        import traceback

        with contextlib.suppress(OSError), open(log, "a") as f:
            f.write(f"accumulator server: error with a request from {client_address}\n")
            traceback.print_exc(file=f)

    server.handle_error = handle_error


def _start(conf, log: Path) -> SparkSession:
    """The session: an existing context (spark-submit, a notebook's), or a new driver JVM
    whose stdout and stderr go to ``log``."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return SparkSession.builder.config(conf=conf).getOrCreate()
    with sigint_held() as interrupted, open(log, "ab") as out:
        gateway = launch_gateway(conf, popen_kwargs={"stdout": out, "stderr": out})
        context = None
        try:
            if not interrupted():
                context = SparkContext(conf=conf, gateway=gateway)
        except Exception as exc:  # the reason, while the JVM still answers py4j
            raise _StartFailed(_java_reason(exc)) from exc
        finally:
            if interrupted() or context is None:
                if context is not None:
                    context.stop()
                _stop_gateway(gateway)
        if interrupted():
            raise KeyboardInterrupt
    return SparkSession.builder.config(conf=conf).getOrCreate()


def _stop_gateway(gateway) -> None:
    """Shut a gateway and its JVM down (the JVM ignores SIGINT: pyspark starts it so), and
    let the next session launch a new one (pyspark keeps the gateway in class attributes)."""
    from pyspark import SparkContext

    if SparkContext._gateway is gateway:
        SparkContext._gateway = None
        SparkContext._jvm = None
    with contextlib.suppress(Exception):
        gateway.shutdown()
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except Exception:
            proc.kill()


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
    if not text:
        try:
            text = str(exc)
        except Exception:  # a py4j error asks its (maybe stopped) JVM for its text
            text = ""
    text = text.strip()
    return text.splitlines()[0] if text else type(exc).__name__


#: The line a task's UsageError leaves in a pyspark PythonException's text.
#: A UsageError raised in a Python worker, as its traceback's last line names it (the class's
#: own dotted name, so a move of the module cannot leave this pattern behind).
_TASK_USAGE = re.compile(
    rf"^{re.escape(f'{UsageError.__module__}.{UsageError.__qualname__}')}: (.+)$", re.MULTILINE
)


def log_failure(exc: BaseException, where: str) -> tuple[str, Path]:
    """Write ``exc``'s traceback (and the Java stack in its text) to :func:`session_log`;
    return its one-line reason (:func:`_java_reason`, at most 160 characters) and the log.
    O(size of the traceback)."""
    import traceback

    log_path = session_log()
    try:
        with open(log_path, "a") as f:
            f.write(f"\n--- trackerlab: Spark failed in {where} ---\n")
            traceback.print_exception(exc, file=f)
    except OSError:
        pass
    reason = _java_reason(exc)
    return (reason[:157] + "..." if len(reason) > 160 else reason), log_path


@contextlib.contextmanager
def spark_action(where: str) -> Iterator[None]:
    """Run Spark actions (``collect``) as one step of a command, so that it ends in one line:
    a task that raised a UsageError gives that line (not pyspark's 85-line PythonException);
    Ctrl-C gives ``KeyboardInterrupt`` (exit 130), also when py4j turned it into a broken
    call; any other failure one UsageError naming ``where`` and the log holding the stacks.
    O(1) besides the block."""
    from trackerlab.core.errors import UsageError
    from trackerlab.core.interrupts import sigint_watched

    with sigint_watched() as interrupted:
        try:
            yield
        except (UsageError, KeyboardInterrupt):
            raise
        except Exception as exc:
            if interrupted():
                raise KeyboardInterrupt from None
            task_lines = _TASK_USAGE.findall(str(exc))
            if task_lines:
                raise UsageError(task_lines[-1].strip()) from None
            reason, log_path = log_failure(exc, where)
            raise UsageError(f"Spark failed in {where} ({reason}); details in {log_path}") from None


def wait_for_executors(spark: SparkSession, timeout_s: float | None = None) -> None:
    """On a cluster master, wait (at most ``timeout_s``) until an executor has registered;
    UsageError if none did (a master that accepts connections but gives no resources would
    otherwise leave the first job waiting forever). Nothing to wait for in local mode."""
    sc = spark.sparkContext
    if _master_of(sc).startswith("local"):
        return
    timeout_s = EXECUTOR_WAIT_S if timeout_s is None else timeout_s
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
    if _master_of(sc).startswith("local") or getattr(sc, "_trackerlab_shipped", None):
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
    setattr(sc, "_trackerlab_shipped", target)  # noqa: B010  # a marker attribute pyspark does not declare
    return target


def stop_session() -> None:
    """Stop the active session, if any (tests, benchmarks)."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is not None:
        spark.stop()
