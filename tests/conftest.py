"""Shared fixtures: repository paths and a CLI runner."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

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
) -> CliResult:
    """Run ``python -m trackerlab ARGS`` in a process group of its own and call
    ``on_match(proc)`` once a stderr line matches ``pattern`` (to kill it, or a part of it)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "trackerlab", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if any(re.search(pattern, line) for line in list(lines)):
            on_match(proc)
            break
        time.sleep(0.05)
    out = proc.stdout.read()
    proc.wait(timeout=timeout)
    reader.join(timeout=30)
    return CliResult(proc.returncode, out, "".join(lines))


def file_tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``: relative path -> content."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="session")
def spark():
    """One local[2] Spark session per test process, shared by every Spark test (the sweep
    tests under spark/ and the fault-injection tests under faults/)."""
    from trackerlab.errors import UsageError
    from trackerlab.spark.session import get_session

    try:
        session = get_session("local[2]", app_name="trackerlab-tests")
    except UsageError as exc:  # no Java: the Spark tests cannot run here
        pytest.skip(f"no Spark session: {exc}")
    yield session
    session.stop()


def jvm_probe(uncompressed_oops: bool = False):
    """jvm-check's probe JVM (one per process), or a skip where this machine has no Java."""
    from trackerlab.javacheck import JavaMissing
    from trackerlab.jvmcheck.probe import ProbeUnavailable, get_probe

    try:
        return get_probe(uncompressed_oops)
    except (JavaMissing, ProbeUnavailable) as exc:
        pytest.skip(f"no probe JVM: {exc}")


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
