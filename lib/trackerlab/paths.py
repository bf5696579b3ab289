"""Where the repository's folders are: notebooks, data, reports.

The package is installed in editable mode from the repository, so the repository root is
two levels above this file. ``TRACKERLAB_ROOT`` overrides it (for tests and for installs
outside a checkout).
"""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The repository root: ``$TRACKERLAB_ROOT`` or the folder holding ``lib/trackerlab``."""
    env = os.environ.get("TRACKERLAB_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2]


def notebooks_dir() -> Path:
    """The committed, output-free notebooks."""
    return repo_root() / "notebooks"


def data_dir() -> Path:
    """Inputs (``data/published``) and experiment results (``data/sweeps``)."""
    return repo_root() / "data"


def reports_dir() -> Path:
    """Executed notebooks, their HTML and ``index.html``."""
    return repo_root() / "reports"


def cache_dir() -> Path:
    """Folder for compiled helpers and JVM settings: ``$TRACKERLAB_CACHE`` or
    ``$XDG_CACHE_HOME/trackerlab`` (``~/.cache/trackerlab``)."""
    env = os.environ.get("TRACKERLAB_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "trackerlab"


def published_csv() -> Path:
    """The project's copy of every number the seeds publish."""
    return data_dir() / "published" / "published_numbers.csv"


def verdicts_csv() -> Path:
    """The reviewed verdict of every published number: category, evidence, reason."""
    return data_dir() / "published" / "verdicts.csv"


def display_path(path: str | Path) -> str:
    """``path`` as a reader on another machine can use it: relative to the repository
    (``data/sweeps/smoke``), else only its last two parts (``…/sweeps/smoke``)."""
    p = Path(path)
    if not p.is_absolute():
        return str(p)
    try:
        return str(p.resolve().relative_to(repo_root())) or "."
    except (ValueError, OSError):
        parts = [x for x in p.parts if x != "/"]
        return "…/" + "/".join(parts[-2:]) if len(parts) > 2 else "/".join(parts)
