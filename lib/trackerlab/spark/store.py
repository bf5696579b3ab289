"""A sweep folder: one Parquet file per completed grid point, a manifest with checksums, a lock.

Layout of ``data/sweeps/NAME/``::

    manifest.json              grid name, source and point keys of the last run, then
                               {point key: file, sha256, bytes, grid row, ...} of every
                               point computed
    grid.json                  the expanded grid of the last run (one row per point)
    points/<key>.parquet       the rows of one point (designs x shapes), with provenance
    .lock                      flock'ed while a sweep writes (trackerlab.core.durable.FolderLock)

Every file is written durably (:func:`trackerlab.core.durable.atomic_write_bytes`: temporary file,
``fsync``, rename, ``fsync`` of the folder), the point file first, then the manifest that
records its SHA-256. A point counts as done only if its file reads back and matches the
checksum (:meth:`SweepStore.completed`): a truncated, emptied or bit-flipped file is
recomputed on resume, with one line saying so, and :func:`read_sweep` refuses it with one
line naming it. A point file without a manifest entry (a run killed between the two writes)
is adopted if it reads back and holds the point its name says. Every point file records
its identity (point key, grid row, point id, delay input hash) in its Parquet metadata;
:meth:`SweepStore.verify` compares it with the file's name and, on resume, with the grid's
point, whether or not the manifest has an entry or a checksum: a point file copied over
another is recomputed with one line naming it, never adopted. Every file is read through
the bounded reader (:func:`trackerlab.core.safe_yaml.read_user_file`: regular files only, a size
bound, a JSON depth bound), so a FIFO, ``/dev/zero`` or a deeply nested manifest is one line.
Temporary files of killed runs (named by :func:`trackerlab.core.durable.own_name`) are removed by
the next run that takes the lock; nothing else in the folder is. A point whose grid changed (another design list, an axis value removed)
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from trackerlab.core.durable import FolderLock, atomic_write_bytes, os_error_text, remove_leftovers
from trackerlab.core.errors import UsageError
from trackerlab.core.parquet_bytes import read_parquet_bytes
from trackerlab.core.paths import check_out
from trackerlab.core.safe_yaml import FileRefused, read_json, read_user_file

FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)  # 1: before checksums
MANIFEST = "manifest.json"
POINTS = "points"
LOCK = ".lock"
#: Bounds of the bounded reader for a manifest and a point file.
MAX_MANIFEST_BYTES = 64 << 20
MAX_POINT_BYTES = 256 << 20
#: The columns that identify a point, recorded with its key in the file's metadata.
IDENTITY = ("grid_row", "point_id", "delay_inputs")
_IDENTITY_META = b"trackerlab_point"


def _read_point(data: bytes) -> pd.DataFrame:
    return read_parquet_bytes(data).to_pandas()


def expected_identities(points: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """``{key: identity}`` of grid points (:class:`~trackerlab.spark.grid.GridPoint`), the
    ``expect`` of :meth:`SweepStore.completed`."""
    return {p.key: identity_of(p.columns()) for p in points}


def identity_of(columns: Mapping[str, Any] | pd.Series) -> dict[str, Any]:
    """A point's identity columns (:data:`IDENTITY`) from its row or grid columns."""
    return {c: _plain(columns.get(c)) for c in IDENTITY}


def _plain(value: Any) -> Any:
    """A JSON-comparable scalar: numpy scalars as Python ones, NaN and '' as None."""
    if hasattr(value, "item"):
        value = value.item()
    if (isinstance(value, str) and not value) or (isinstance(value, float) and value != value):
        return None
    return value


def _identity_problem(key: str, table: Any, expect: Mapping[str, Any] | None) -> str | None:
    """Why a point file read as ``table`` is not point ``key`` of the grid (``expect``: the
    grid's identity columns, None when reading without a grid), or None. The file's recorded
    identity is compared with its name, its rows and ``expect``; a file written before
    identities were recorded is compared by its rows. O(rows)."""
    meta = (table.schema.metadata or {}).get(_IDENTITY_META)
    try:
        recorded = json.loads(meta) if meta is not None else None
    except ValueError:
        return "its recorded point identity is not JSON"
    if recorded is not None:
        if not isinstance(recorded, dict):
            return "its recorded point identity is not an object"
        if recorded.get("key") != key:
            return f"it holds point {recorded.get('key')!r} (grid row {recorded.get('grid_row')})"
    rows = table.to_pandas()
    found = {}
    for column in IDENTITY:
        values = (
            {_plain(v) for v in rows[column].tolist()} - {None} if column in rows.columns else set()
        )
        if len(values) > 1:
            return f"its rows hold several points ({column} {sorted(values, key=str)})"
        found[column] = values.pop() if values else None
        if recorded is not None and found[column] != _plain(recorded.get(column)):
            return f"its rows say {column} {found[column]!r}, its metadata {recorded.get(column)!r}"
    for column, want in (expect or {}).items():
        if found.get(column) != _plain(want):
            return f"it holds {column} {found.get(column)!r}, the grid's point has {want!r}"
    return None


class SweepStore:
    """The output folder of one sweep (created on first write, never emptied)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = FolderLock(
            self.root / LOCK,
            f"another sweep is writing to {self.root}; wait for it or use another --out",
        )

    # ------------------------------------------------------------------ lock

    def check_out(self) -> None:
        """UsageError if ``--out`` is a folder no command may fill (the same refusals as
        ``report --out``: :func:`trackerlab.core.paths.check_out`)."""
        check_out(self.root, "write sweep results into", "data/sweeps/NAME")

    def check_writable(self) -> None:
        """UsageError if the folder cannot hold results (refused by :meth:`check_out`, a
        file, or not writable)."""
        self.check_out()
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
        temporary files killed runs left (:func:`trackerlab.core.durable.leftover`: trackerlab's
        own names only); returns them."""
        try:
            (self.root / POINTS).mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        except OSError as exc:
            raise UsageError(f"sweep: cannot write {os_error_text(exc)}") from None
        return remove_leftovers(self.root) + remove_leftovers(self.root / POINTS)

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
            data = read_json(path, "sweep manifest", MAX_MANIFEST_BYTES)
        except FileRefused as exc:
            raise UsageError(f"{exc}{hint}") from None
        problem = _manifest_problem(data)
        if problem:
            raise UsageError(f"{path}: {problem}{hint}")
        return data

    def verify(
        self,
        key: str,
        entry: Mapping[str, Any] | None,
        expect: Mapping[str, Any] | None = None,
    ) -> str | None:
        """Why point ``key``'s file cannot be used (None if it reads back through the bounded
        reader, matches its checksum when the manifest has one, and holds point ``key``:
        :func:`_identity_problem`, with the grid's identity columns ``expect``). A missing
        file is 'missing'. O(file size)."""
        path = self.root / POINTS / f"{key}.parquet"
        try:
            data = read_user_file(path, "sweep point", MAX_POINT_BYTES)
        except FileRefused as exc:
            return exc.reason
        want = (entry or {}).get("sha256")
        if want is not None and hashlib.sha256(data).hexdigest() != want:
            return f"checksum mismatch ({len(data):,} bytes)"
        try:
            table = read_parquet_bytes(data)
        except Exception as exc:  # pyarrow's errors on damaged files vary by damage
            return f"not a readable Parquet file ({str(exc).splitlines()[0][:80]})"
        return _identity_problem(key, table, expect)

    def completed(
        self,
        keys: Iterable[str],
        log: Callable[[str], None] | None = None,
        expect: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> set[str]:
        """The keys among ``keys`` whose point file reads back, matches its checksum and
        holds that point (``expect``: key -> the grid's :func:`identity_of`); ``log`` gets
        one line per damaged or foreign point file (it will be recomputed)."""
        points = self.manifest()["points"]
        expect = expect or {}
        done = set()
        for key in keys:
            reason = self.verify(key, points.get(key), expect.get(key))
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

    def write_point(self, key: str, rows: Sequence[Mapping[str, Any]], summary: Mapping) -> Path:
        """Write one point's rows durably, then record it (and its checksum) in the manifest."""
        path = self.root / POINTS / f"{key}.parquet"
        data = _point_bytes(key, list(rows))
        digest = atomic_write_bytes(path, data)  # data: see _point_bytes
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

    def adopt(
        self, keys: Iterable[str], expect: Mapping[str, Mapping[str, Any]] | None = None
    ) -> None:
        """Record the checksum of point files the manifest lacks (a run killed between
        writing a point and recording it), each verified again first (:meth:`verify`: it
        reads back and holds the point of its key, ``expect`` as in :meth:`completed`); a
        file that does not is left out (it is recomputed). Call under the lock."""
        manifest = self.manifest()
        expect = expect or {}
        added = False
        for key in keys:
            entry = manifest["points"].get(key)
            if entry is None or "sha256" not in entry:
                if self.verify(key, None, expect.get(key)) is not None:
                    continue
                data = read_user_file(
                    self.root / POINTS / f"{key}.parquet", "sweep point", MAX_POINT_BYTES
                )
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


def _point_bytes(key: str, rows: list[Mapping[str, Any]]) -> bytes:
    """One point's rows as Parquet, its identity (key and :data:`IDENTITY` columns of its
    rows) in the file's metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False)
    identity = {"key": key, **identity_of(rows[0] if rows else {})}
    meta = {**(table.schema.metadata or {}), _IDENTITY_META: json.dumps(identity).encode()}
    buffer = io.BytesIO()
    pq.write_table(table.replace_schema_metadata(meta), buffer)
    return buffer.getvalue()


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
    holders: dict[tuple, Path] = {}
    for f in files:
        entry = manifest["points"].get(f.stem)
        reason = store.verify(f.stem, entry)
        if reason is not None:
            raise UsageError(
                f"{f}: damaged sweep point ({reason}); re-run the sweep to recompute it"
            )
        frame = _read_point(read_user_file(f, "sweep point", MAX_POINT_BYTES))
        ident = tuple(identity_of(frame.iloc[0]).values()) if len(frame) else ()
        if any(v is not None for v in ident) and ident in holders:
            raise UsageError(
                f"{f}: holds the same point as {holders[ident].name} (a copied file); "
                "re-run the sweep to recompute it"
            )
        holders[ident] = f
        frames.append(frame)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)
