"""Where the repository's folders are: notebooks, data, reports.

The package is installed in editable mode from the repository, so the repository root is
two levels above this file. ``TRACKERLAB_ROOT`` overrides it (for tests and for installs
outside a checkout).
"""

from __future__ import annotations

import os
from pathlib import Path

from trackerlab.core.errors import UsageError


def repo_root() -> Path:
    """The repository root: ``$TRACKERLAB_ROOT`` or the folder holding ``lib/trackerlab``."""
    env = os.environ.get("TRACKERLAB_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[3]


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


def check_out(out: Path | str, action: str, example: str) -> Path:
    """``--out`` resolved, or one UsageError line if it is empty or a folder no command may
    write its files into: the filesystem root, the home folder, the current folder or one of
    its parents, a folder holding ``.git``. ``action`` says what the command would do there
    (``publish into``), ``example`` a folder to suggest. Shared by ``report`` and ``sweep``.
    O(depth of the current folder)."""
    if not str(out).strip():
        raise UsageError(f"--out must name a folder, got {str(out)!r}")
    path = Path(out).expanduser().resolve()
    cwd = Path.cwd().resolve()
    why = None
    if path == Path(path.anchor):
        why = "the filesystem root"
    elif path == Path.home().resolve():
        why = "the home folder"
    elif path == cwd or path in cwd.parents:
        why = "the current folder or one of its parents"
    elif (path / ".git").exists():
        why = "a folder holding a .git repository"
    if why:
        raise UsageError(
            f"--out {path}: refusing to {action} {why}; give a folder of its own, such as {example}"
        )
    return path
