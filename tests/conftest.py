"""Shared fixtures: repository paths and a CLI runner."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import tiers

REPO = Path(__file__).resolve().parents[1]
FIXTURE_NOTEBOOKS = REPO / "tests" / "fixtures" / "notebooks"


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, timeout: float = 300, **kwargs) -> CliResult:
    """Run ``python -m trackerlab ARGS`` in a subprocess, as a user would."""
    proc = subprocess.run(
        [sys.executable, "-m", "trackerlab", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        **kwargs,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_cli_until(
    args: list[str],
    pattern: str,
    on_match: Callable[[subprocess.Popen], None],
    env: dict[str, str] | None = None,
    timeout: float = 300,
    stream: str = "stderr",
) -> CliResult:
    """Run ``python -m trackerlab ARGS`` in a process group of its own and call
    ``on_match(proc)`` once a line of ``stream`` (``stderr`` or ``stdout``; give
    ``PYTHONUNBUFFERED=1`` in ``env`` for stdout) matches ``pattern`` (to kill it, or a part
    of it)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "trackerlab", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    watched, other = (
        (proc.stderr, proc.stdout) if stream == "stderr" else (proc.stdout, proc.stderr)
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(watched), daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if any(re.search(pattern, line) for line in list(lines)):
            on_match(proc)
            break
        time.sleep(0.05)
    rest = other.read()
    proc.wait(timeout=timeout)
    reader.join(timeout=30)
    seen = "".join(lines)
    if stream == "stderr":
        return CliResult(proc.returncode, rest, seen)
    return CliResult(proc.returncode, seen, rest)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder another user can enter, in the system's temporary folder: pytest's tmp_path is
    private to its owner, and so may be the folder this repository was cloned into."""
    folder = Path(tempfile.mkdtemp(prefix="trackerlab-shared-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def file_tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``: relative path -> content."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def dead_leftover(kind: str) -> str:
    """A name :func:`trackerlab.core.durable.own_name` makes, with a pid no process can have
    (above ``/proc/sys/kernel/pid_max``): what a killed run leaves behind."""
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    return f".trackerlab-{pid_max + 1}-0123456789ab.{kind}"


# The skip rule (tests/README.md): a test skips only when something outside the repository is
# missing (Java, a jar, Maven Central, Chromium, another user). The helpers below skip for
# those kinds alone; a compile error in the project's Java, a Spark configuration error or a
# failed build raises, and the tests that use them fail (tests/test_skip_rule.py).

NO_FASTUTIL = (
    "fastutil jar not found (/usr/share/java/fastutil.jar from Debian libfastutil-java, or "
    "$TRACKERLAB_FASTUTIL_JAR); .ci/run installs it"
)


def spark_session():
    """The local[2] session of this test process, or a skip when Java is missing; any other
    failure to start (a configuration Spark refuses, a JVM that exits) raises."""
    from trackerlab.spark.session import SparkJavaMissing, get_session

    try:
        return get_session("local[2]", app_name="trackerlab-tests")
    except SparkJavaMissing as exc:  # no Java 17+: the Spark tests cannot run here
        pytest.skip(f"no Spark session: {exc}")


@pytest.fixture(scope="session")
def spark():
    """One local[2] Spark session per test process, shared by every Spark test (the sweep
    tests under spark/ and the fault-injection tests under faults/)."""
    session = spark_session()
    yield session
    session.stop()


def jvm_probe(uncompressed_oops: bool = False):
    """jvm-check's probe JVM (one per process), or a skip where this machine has no Java or no
    ``javac``; the project's Java failing to compile (or the JVM to start) raises."""
    from trackerlab.core.java_runtime import JavaMissing
    from trackerlab.jvmcheck.probe import ProbeMissing, get_probe

    try:
        return get_probe(uncompressed_oops)
    except (JavaMissing, ProbeMissing) as exc:
        pytest.skip(f"no probe JVM: {exc}")


def require_fastutil(probe) -> None:
    """Skip when Debian's fastutil jar is not installed; fail when it is, but the probe JVM
    cannot load its classes (then the probe's class path is wrong: a defect here)."""
    from trackerlab.jvmcheck.probe import fastutil_jar

    jar = fastutil_jar()
    if jar is None:
        pytest.skip(NO_FASTUTIL)
    assert probe.fastutil, f"{jar} is installed, but the probe JVM cannot load fastutil"


@pytest.fixture(scope="module")
def probe():
    """The probe JVM with compressed oops (the default layout)."""
    return jvm_probe(False)


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def fixture_notebooks() -> Path:
    return FIXTURE_NOTEBOOKS


def assert_one_line_error(result: CliResult, *needles: str, code: int = 2) -> None:
    """The CLI failed with ``code``, printed exactly one stderr line, and it names ``needles``."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == code, (result.returncode, result.stderr)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("trackerlab: "), lines[0]
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def bucket_run(
    messages: int,
    rate_per_ms: float,
    trim_bits: int,
    *,
    entries_per_ledger: int = 50_000,
    delay: str = "fixed:0",
    pattern: str = "all",
    batch_size: int = 1,
    seed: int = 0,
    **options: object,
):
    """A :class:`~trackerlab.models.delayed.time_bucket_runs.BucketRun` from workload options
    (``options``: the run's own, e.g. ``tick_ms``, ``run_optimize``, ``shape``)."""
    from trackerlab.models.delayed.time_bucket_runs import BucketRun
    from trackerlab.workloads.stream import Workload

    workload = Workload.from_options(
        messages,
        rate_per_ms,
        delay=delay,
        pattern=pattern,
        entries_per_ledger=entries_per_ledger,
        batch_size=batch_size,
        seed=seed,
    )
    return BucketRun(workload, trim_bits, **options)  # type: ignore[arg-type]


def pytest_configure(config: pytest.Config) -> None:
    """Register the tier markers; under ``TRACKERLAB_FAST=1`` guard against heavy programs."""
    for name, what in tiers.HEAVY.items():
        config.addinivalue_line("markers", f"{name}: {what}")
    if os.environ.get(tiers.FAST_ENV) == "1":
        tiers.install_guard(lambda: os.environ.get("PYTEST_CURRENT_TEST", "a test"))
    restore_ctrl_c()


def restore_ctrl_c() -> None:
    """Give this process (and so the programs the tests start) Python's Ctrl-C handling back
    when SIGINT arrives ignored: a shell without job control starts a background job (``make
    test &``, ``nohup``) with SIGINT ignored, children inherit that through exec, and the
    Ctrl-C tests would see programs that never stop (a run here: 3 failures, exit 0)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give each test the tier markers of its folder, file and fixtures (tests/tiers.py)."""
    for item in items:
        path = Path(str(item.path)).resolve()
        if not path.is_relative_to(REPO):  # a suite run from a copy (tests/test_skip_rule.py)
            continue
        relative = path.relative_to(REPO).as_posix()
        nodeid = (
            relative + item.nodeid[item.nodeid.index("::") :] if "::" in item.nodeid else relative
        )
        for name in tiers.tier_markers(nodeid, getattr(item, "fixturenames", ())):
            item.add_marker(name)
