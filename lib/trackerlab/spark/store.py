"""A sweep folder: one Parquet file per completed grid point, a manifest with checksums, a lock.

Layout of ``data/sweeps/NAME/``::

    manifest.json              grid name, source and point keys of the last run, then
                               {point key: file, sha256, bytes, grid row, ...} of every
                               point computed
    grid.json                  the expanded grid of the last run (one row per point)
    points/<key>.parquet       the rows of one point (designs x shapes), with provenance
    .lock                      flock'ed while a sweep writes (trackerlab.durable.FolderLock)

Every file is written durably (:func:`trackerlab.durable.atomic_write_bytes`: temporary file,
``fsync``, rename, ``fsync`` of the folder), the point file first, then the manifest that
records its SHA-256. A point counts as done only if its file reads back and matches the
checksum (:meth:`SweepStore.completed`): a truncated, emptied or bit-flipped file is
recomputed on resume, with one line saying so, and :func:`read_sweep` refuses it with one
line naming it. A point file without a manifest entry (a run killed between the two writes)
is adopted if it reads back. Temporary files of killed runs are removed by the next run
that takes the lock. A point whose grid changed (another design list, an axis value removed)
gets another key; its old file stays but :func:`read_sweep` reads only the last run's grid
unless asked for every file. Reading needs only pandas/pyarrow, so reports render without
Spark.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from trackerlab.durable import (
    TMP_SUFFIX,
    FolderLock,
    atomic_write_bytes,
    os_error_text,
    remove_leftovers,
)
from trackerlab.errors import UsageError

FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)  # 1: before checksums
MANIFEST = "manifest.json"
POINTS = "points"
LOCK = ".lock"
LEFTOVERS = (f".*{TMP_SUFFIX}", ".*.tmp-*")  # this module's and older versions' temporaries


def _read_point(data: bytes) -> pd.DataFrame:
    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data)).to_pandas()


class SweepStore:
    """The output folder of one sweep (created on first write, never emptied)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = FolderLock(
            self.root / LOCK,
            f"another sweep is writing to {self.root}; wait for it or use another --out",
        )

    # ------------------------------------------------------------------ lock

    def check_writable(self) -> None:
        """UsageError if the folder cannot hold results (a file, or not writable)."""
        if not str(self.root).strip():
            raise UsageError("--out must not be empty")
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"--out {self.root} exists and is not a folder")
        points = self.root / POINTS
        if points.exists() and not points.is_dir():
            raise UsageError(f"--out {self.root}: {points} is not a folder")
        parent = self.root if self.root.exists() else self.root.parent
        while not parent.exists():
            parent = parent.parent
        if not parent.is_dir():
            raise UsageError(f"--out {self.root}: {parent} is not a folder")
        if not os.access(parent, os.W_OK):
            raise UsageError(f"--out {self.root}: no permission to write in {parent}")

    def lock(self) -> list[Path]:
        """Take the folder's lock (UsageError if another process holds it), then remove the
        temporary files killed runs left; returns them."""
        try:
            (self.root / POINTS).mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        except OSError as exc:
            raise UsageError(f"sweep: cannot write {os_error_text(exc)}") from None
        return remove_leftovers(self.root, LEFTOVERS) + remove_leftovers(
            self.root / POINTS, LEFTOVERS
        )

    def unlock(self) -> None:
        self._lock.release()

    # ------------------------------------------------------------------ manifest

    def manifest(self) -> dict[str, Any]:
        """The manifest, checked; UsageError naming the file if it is not a manifest."""
        path = self.root / MANIFEST
        if not path.exists() and not path.is_symlink():
            return {"format": FORMAT_VERSION, "points": {}}
        hint = "; move it away and re-run to rebuild it from the point files"
        try:
            data = json.loads(path.read_bytes().decode("utf-8"))
        except IsADirectoryError:
            raise UsageError(f"{path} is a folder, not a sweep manifest{hint}") from None
        except OSError as exc:
            raise UsageError(f"cannot read {os_error_text(exc)}") from None
        except UnicodeDecodeError:
            raise UsageError(f"{path} is not UTF-8 text{hint}") from None
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path} is not valid JSON ({exc}){hint}") from None
        problem = _manifest_problem(data)
        if problem:
            raise UsageError(f"{path}: {problem}{hint}")
        return data

    def verify(self, key: str, entry: Mapping[str, Any] | None) -> str | None:
        """Why point ``key``'s file cannot be used (None if it reads back and matches its
        checksum). A missing file is 'missing'. O(file size)."""
        path = self.root / POINTS / f"{key}.parquet"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return "missing"
        except IsADirectoryError:
            return "a folder, not a file"
        except OSError as exc:
            return f"unreadable ({os_error_text(exc)})"
        want = (entry or {}).get("sha256")
        if want is not None and hashlib.sha256(data).hexdigest() != want:
            return f"checksum mismatch ({len(data):,} bytes)"
        try:
            _read_point(data)
        except Exception as exc:  # pyarrow's errors on damaged files vary by damage
            return f"not a readable Parquet file ({str(exc).splitlines()[0][:80]})"
        return None

    def completed(self, keys: Iterable[str], log: Callable[[str], None] | None = None) -> set[str]:
        """The keys among ``keys`` whose point file reads back and matches its checksum;
        ``log`` gets one line per damaged point (it will be recomputed)."""
        points = self.manifest()["points"]
        done = set()
        for key in keys:
            reason = self.verify(key, points.get(key))
            if reason is None:
                done.add(key)
            elif reason != "missing" and log is not None:
                label = points.get(key, {}).get("label", key)
                log(f"point {label}: damaged file points/{key}.parquet ({reason}); recomputing it")
        return done

    def write_grid(self, grid_table: pd.DataFrame, name: str, source: str, keys: list[str]) -> None:
        """Record the grid of this run: its table and its point keys (what is read)."""
        (self.root / POINTS).mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.root / "grid.json", grid_table.to_json(orient="records").encode())
        manifest = self.manifest()
        manifest.update({"grid": name, "source": source, "grid_keys": keys})
        self._write_manifest(manifest)

    def write_point(self, key: str, rows: list[Mapping[str, Any]], summary: Mapping) -> Path:
        """Write one point's rows durably, then record it (and its checksum) in the manifest."""
        path = self.root / POINTS / f"{key}.parquet"
        buffer = io.BytesIO()
        pd.DataFrame(list(rows)).to_parquet(buffer, index=False)
        data = buffer.getvalue()
        digest = atomic_write_bytes(path, data)
        manifest = self.manifest()
        manifest["points"][key] = {
            "file": f"{POINTS}/{path.name}",
            "sha256": digest,
            "bytes": len(data),
            **summary,
        }
        manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._write_manifest(manifest)
        return path

    def adopt(self, keys: Iterable[str]) -> None:
        """Record the checksum of verified point files the manifest lacks (a run killed
        between writing a point and recording it). Call under the lock."""
        manifest = self.manifest()
        added = False
        for key in keys:
            entry = manifest["points"].get(key)
            if entry is None or "sha256" not in entry:
                data = (self.root / POINTS / f"{key}.parquet").read_bytes()
                manifest["points"][key] = {
                    **(entry or {}),
                    "file": f"{POINTS}/{key}.parquet",
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "bytes": len(data),
                }
                added = True
        if added:
            self._write_manifest(manifest)

    def _write_manifest(self, manifest: Mapping[str, Any]) -> None:
        manifest = {**manifest, "format": FORMAT_VERSION}
        data = json.dumps(manifest, indent=1, sort_keys=True).encode()
        atomic_write_bytes(self.root / MANIFEST, data)


def _manifest_problem(data: object) -> str | None:
    """What makes ``data`` not a sweep manifest, or None."""
    if not isinstance(data, dict):
        return f"a sweep manifest is a JSON object, got {type(data).__name__}"
    if data.get("format") not in READABLE_FORMATS:
        return f"has format {data.get('format')!r}, expected one of {READABLE_FORMATS}"
    points = data.get("points")
    if not isinstance(points, dict):
        return "has no 'points' object"
    for key, entry in points.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            return f"point {key!r} is not an object with a 'file'"
        if "sha256" in entry and not isinstance(entry["sha256"], str):
            return f"point {key!r} has a malformed sha256"
    keys = data.get("grid_keys")
    if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        return "'grid_keys' is not a list of point keys"
    return None


def read_sweep(root: str | Path, every_file: bool = False) -> pd.DataFrame:
    """The rows of the completed points of the last run's grid (``every_file``: of every
    point file, old grids included), pandas + pyarrow only. Missing folder:
    FileNotFoundError; a folder without points: an empty frame; a damaged point file (its
    checksum or its Parquet structure): one-line UsageError naming it."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"no sweep folder {root}")
    store = SweepStore(root)
    manifest = store.manifest()
    points_dir = root / POINTS
    if points_dir.exists() and not points_dir.is_dir():
        raise UsageError(f"{points_dir} is not a folder")
    try:  # os.listdir, not glob: glob hides an unreadable folder as an empty one
        names = os.listdir(points_dir) if points_dir.exists() else []
    except OSError as exc:
        raise UsageError(f"cannot read {os_error_text(exc)}") from None
    files = sorted(points_dir / n for n in names if n.endswith(".parquet") and n[0] != ".")
    keys = None if every_file else manifest.get("grid_keys")
    if keys is not None:
        wanted = set(keys)
        files = [f for f in files if f.stem in wanted]
    frames = []
    for f in files:
        entry = manifest["points"].get(f.stem)
        reason = store.verify(f.stem, entry)
        if reason is not None:
            raise UsageError(
                f"{f}: damaged sweep point ({reason}); re-run the sweep to recompute it"
            )
        frames.append(_read_point(f.read_bytes()))
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)
