"""Fault injection helpers: damaged files, another user, a small full filesystem (the
``shared_tmp`` folder another user can enter is in ``tests/conftest.py``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import trackerlab
from tests.conftest import REPO, CliResult
from trackerlab.core.paths import data_dir

NOBODY = 65534
#: A 3-point grid of 4,096 messages a point, one point a Spark wave.
SMALL_GRID = """\
root_seed: 5
messages: 4096
rate_per_ms: [1, 2, 4]
trim_bits: 8
delay: uniform:0:1s
settings: {wave_messages: 4096}
"""


def cli_as_other_user(*args: str, cache: Path, timeout: float = 300) -> CliResult:
    """``python -m trackerlab ARGS`` as a user without special rights: ``nobody`` when the
    suite runs as root (root reads anything: a chmod would prove nothing), else ourselves."""
    return python_as_other_user("-m", "trackerlab", *args, cache=cache, timeout=timeout)


def python_as_other_user(*args: str, cache: Path, timeout: float = 300) -> CliResult:
    """``python ARGS`` as :func:`cli_as_other_user` runs it. ``nobody`` may not enter the
    folder this repository was cloned into (``mktemp -d`` and root's home are private), so it
    runs in ``cache`` (a folder it can read) on the copy :func:`checkout_for_other_user` puts
    there: the ``trackerlab`` package and the data it reads."""
    prefix: list[str] = []
    env = {**os.environ, "HOME": str(cache), "TRACKERLAB_CACHE": str(cache)}
    cwd = REPO
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("permission tests: running as root without setpriv to drop to nobody")
        prefix = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        lib = checkout_for_other_user(cache)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(lib), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        env["TRACKERLAB_ROOT"] = str(cache)
        cwd = cache
        _other_user_runs_the_environment(prefix, env, lib)
    proc = subprocess.run(
        [*prefix, sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def checkout_for_other_user(folder: Path) -> Path:
    """What the package needs of the repository, copied into ``folder`` in the repository's
    layout, readable by every user (files 0644, folders 0755, whatever the clone's umask):
    ``lib/trackerlab`` (the package under test) and ``data/`` (the release tables and the
    published numbers; not the results under ``data/sweeps``). Copied once; returns
    ``folder/lib``."""
    lib = folder / "lib"
    if not (lib / "trackerlab").is_dir():
        package = Path(trackerlab.__file__).resolve().parent
        shutil.copytree(package, lib / "trackerlab", ignore=shutil.ignore_patterns("__pycache__"))
        results = {"sweeps", "broker"}  # data/sweeps, data/broker: outputs, not inputs
        shutil.copytree(data_dir(), folder / "data", ignore=lambda d, names: results & set(names))
        for path in [lib, *lib.rglob("*"), folder / "data", *(folder / "data").rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    return lib


def _other_user_runs_the_environment(prefix: list[str], env: dict[str, str], lib: Path) -> None:
    """Skip, naming the folder, when ``nobody`` cannot run this environment's interpreter with
    its packages (a virtual environment inside a private clone: nothing to copy it to); fail
    when it runs but imports another ``trackerlab`` than the copy in ``lib``."""
    check = "import numpy, pandas, pyarrow, pyroaring, yaml"  # what the package imports
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", check],
        capture_output=True,
        text=True,
        env=env,
        cwd=lib.parent,
    )
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        pytest.skip(
            f"permission tests: user nobody cannot run this environment's interpreter and "
            f"packages ({sys.executable}: {why}), e.g. a .venv in a folder only its owner "
            "can enter"
        )
    imported = subprocess.run(
        [*prefix, sys.executable, "-c", "import trackerlab; print(trackerlab.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=lib.parent,
    )
    assert imported.returncode == 0, imported.stderr
    want = (lib / "trackerlab" / "__init__.py").resolve()
    assert Path(imported.stdout.strip()).resolve() == want, imported.stdout


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
