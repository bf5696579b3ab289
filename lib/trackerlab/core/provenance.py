"""Provenance recorded with every report and every result file: git commit and versions."""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import subprocess
from pathlib import Path

from trackerlab.core.paths import repo_root

#: Distributions whose versions are recorded (import names differ for some).
TRACKED_DISTRIBUTIONS = (
    "trackerlab",
    "pyroaring",
    "numpy",
    "pandas",
    "pyarrow",
    "pyspark",
    "pympler",
    "papermill",
    "matplotlib",
)


def git_commit(root: Path | None = None) -> str:
    """``HEAD``'s commit id, with ``-dirty`` if tracked files changed; ``unknown`` outside git."""
    root = root or repo_root()
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = head.stdout.strip()
    return commit + ("-dirty" if dirty.stdout.strip() else "")


@functools.cache
def library_versions() -> dict[str, str]:
    """Versions of Python, CRoaring, Java and the tracked distributions."""
    versions = {"python": platform.python_version()}
    for dist in TRACKED_DISTRIBUTIONS:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "absent"
    try:
        import pyroaring

        versions["croaring"] = str(pyroaring.__croaring_version__)
    except (ImportError, AttributeError):
        pass
    try:
        from trackerlab.core.java_runtime import java_major

        versions["java"] = str(java_major()[1])
    except Exception:
        versions["java"] = "absent"
    return versions
