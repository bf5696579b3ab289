"""Shared fixtures: repository paths and a CLI runner."""

from __future__ import annotations

import subprocess
import sys
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
