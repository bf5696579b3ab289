"""A sweep folder: one Parquet file per completed grid point, a manifest, a lock.

Layout of ``data/sweeps/NAME/``::

    manifest.json              grid name, source and point keys of the last run, then
                               {point key: file, grid row, ...} of every point computed
    grid.json                  the expanded grid of the last run (one row per point)
    points/<key>.parquet       the rows of one point (designs x shapes), with provenance
    .lock                      present while a sweep writes (pid inside)

A point's file is written to a temporary name in the same folder and renamed into place
(atomic on POSIX), then the manifest is rewritten the same way; so an interrupted or failed
run leaves every finished point readable and never a half-written one, and a re-run skips
the points whose file exists (:meth:`SweepStore.completed`). A point whose grid changed
(another design list, an axis value removed) gets another key; its old file stays but
:func:`read_sweep` reads only the last run's grid unless asked for every file. Reading needs
only pandas/pyarrow, so reports render without Spark.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from trackerlab.errors import UsageError

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
POINTS = "points"
LOCK = ".lock"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SweepStore:
    """The output folder of one sweep (created on first write, never emptied)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._locked = False

    # ------------------------------------------------------------------ lock

    def check_writable(self) -> None:
        """UsageError if the folder cannot hold results (a file, or not writable)."""
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"--out {self.root} exists and is not a folder")
        parent = self.root if self.root.exists() else self.root.parent
        while not parent.exists():
            parent = parent.parent
        if not os.access(parent, os.W_OK):
            raise UsageError(f"--out {self.root}: no permission to write in {parent}")

    def lock(self) -> None:
        """Take the folder's lock; UsageError if a live process holds it."""
        (self.root / POINTS).mkdir(parents=True, exist_ok=True)
        path = self.root / LOCK
        for _ in range(2):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                try:
                    pid = int(path.read_text().strip() or 0)
                except (OSError, ValueError):
                    pid = 0
                if pid and pid != os.getpid() and _pid_alive(pid):
                    raise UsageError(
                        f"another sweep (pid {pid}) is writing to {self.root}; wait for it or "
                        "use another --out"
                    ) from None
                path.unlink(missing_ok=True)  # stale lock of a dead process
                continue
            with os.fdopen(fd, "w") as f:
                f.write(str(os.getpid()))
            self._locked = True
            return
        raise UsageError(f"cannot take the lock {path}")

    def unlock(self) -> None:
        if self._locked:
            (self.root / LOCK).unlink(missing_ok=True)
            self._locked = False

    # ------------------------------------------------------------------ manifest

    def manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        if not path.exists():
            return {"format": FORMAT_VERSION, "points": {}}
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path} is not valid JSON ({exc}); move it away to rebuild") from None
        if data.get("format") != FORMAT_VERSION:
            raise UsageError(f"{path} has format {data.get('format')}, expected {FORMAT_VERSION}")
        return data

    def completed(self, keys: Iterable[str]) -> set[str]:
        """The keys among ``keys`` whose point file exists."""
        return {k for k in keys if (self.root / POINTS / f"{k}.parquet").exists()}

    def write_grid(self, grid_table: pd.DataFrame, name: str, source: str, keys: list[str]) -> None:
        """Record the grid of this run: its table and its point keys (what is read)."""
        (self.root / POINTS).mkdir(parents=True, exist_ok=True)
        _atomic_write_bytes(self.root / "grid.json", grid_table.to_json(orient="records").encode())
        manifest = self.manifest()
        manifest.update({"grid": name, "source": source, "grid_keys": keys})
        self._write_manifest(manifest)

    def write_point(self, key: str, rows: list[Mapping[str, Any]], summary: Mapping) -> Path:
        """Write one point's rows atomically, then record it in the manifest."""
        path = self.root / POINTS / f"{key}.parquet"
        frame = pd.DataFrame(list(rows))
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, path)
        manifest = self.manifest()
        manifest["points"][key] = {"file": f"{POINTS}/{path.name}", **summary}
        manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._write_manifest(manifest)
        return path

    def _write_manifest(self, manifest: Mapping[str, Any]) -> None:
        data = json.dumps(manifest, indent=1, sort_keys=True).encode()
        _atomic_write_bytes(self.root / MANIFEST, data)


def read_sweep(root: str | Path, every_file: bool = False) -> pd.DataFrame:
    """The rows of the completed points of the last run's grid (``every_file``: of every
    point file, old grids included), pandas + pyarrow only. Missing folder:
    FileNotFoundError; a folder without points: an empty frame."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"no sweep folder {root}")
    files = sorted((root / POINTS).glob("*.parquet"))
    keys = None if every_file else SweepStore(root).manifest().get("grid_keys")
    if keys is not None:
        wanted = set(keys)
        files = [f for f in files if f.stem in wanted]
    if not files:
        return pd.DataFrame()
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
