"""Fault injection helpers: damaged files, another user, a small full filesystem."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, CliResult

NOBODY = 65534


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder another user can enter (pytest's tmp_path is private to its owner)."""
    folder = Path(tempfile.mkdtemp(prefix="trackerlab-faults-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cli_as_other_user(*args: str, cache: Path, timeout: float = 300) -> CliResult:
    """``python -m trackerlab ARGS`` as a user without special rights: ``nobody`` when the
    suite runs as root (root reads anything: a chmod would prove nothing), else ourselves."""
    return python_as_other_user("-m", "trackerlab", *args, cache=cache, timeout=timeout)


def python_as_other_user(*args: str, cache: Path, timeout: float = 300) -> CliResult:
    """``python ARGS`` as :func:`cli_as_other_user` runs it."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("permission tests: running as root without setpriv to drop to nobody")
        prefix = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    env = {**os.environ, "HOME": str(cache), "TRACKERLAB_CACHE": str(cache)}
    proc = subprocess.run(
        [*prefix, sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env=env,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def _can_mount() -> str | None:
    """None if a tmpfs can be mounted here, else why not."""
    if os.geteuid() != 0:
        return "needs root to mount a small tmpfs (the suite runs as another user)"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "mount/umount not available"
    return None


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    """A 4 MiB tmpfs, unmounted afterwards; skips (with the reason) where it cannot mount."""
    why = _can_mount()
    if why:
        pytest.skip(f"disk-full tests: {why}")
    point = tmp_path / "small-disk"
    point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=755", "tmpfs", str(point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"disk-full tests: cannot mount a tmpfs here ({done.stderr.strip()})")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def fill(folder: Path, leave_bytes: int = 0) -> Path:
    """Fill ``folder``'s filesystem up to ``leave_bytes`` free; returns the filler file."""
    filler = folder / "filler.bin"
    with open(filler, "wb") as f, contextlib.suppress(OSError):
        st = os.statvfs(folder)
        free = st.f_bavail * st.f_frsize - leave_bytes
        chunk = b"\0" * 65536
        while free > 0:
            f.write(chunk[: min(len(chunk), free)])
            free -= len(chunk)
        f.flush()
    return filler
