"""Atomic publishing of a reports folder that never deletes what it did not write.

A run builds the complete new folder next to the published one (same filesystem): a copy
of the published folder, into which the notebooks write. Before publishing, the copy takes
in whatever others changed in the published folder during the run (a note added, a file
edited or removed: :func:`_take_in_changes`); only the files the run wrote or removed
itself differ. The two folders are then exchanged in one ``renameat2(RENAME_EXCHANGE)``
call (Linux >= 3.15, glibc >= 2.28), so a reader sees either the old folder or the new one,
never a mix (where the call is not available, two renames with a window of microseconds);
a file added in the instant between the last check and the exchange is moved into the new
folder. A failed or interrupted run only removes its staging folder; the published folder
is never touched.

The folder keeps the list of files trackerlab wrote there (:data:`OWNED_LIST`); the run
deletes or replaces only files of that list (a folder without a list owns nothing, whatever
its files say), and tells the user which other files it kept. The published folder keeps
its mode (a ``chmod 700`` folder stays private) and every folder the user made, empty ones
included. One ``flock`` (:class:`trackerlab.core.durable.FolderLock`) keeps two runs from
publishing into the same folder at once; whoever holds it removes the staging folders and
temporary files of killed runs (trackerlab's own names only:
:func:`trackerlab.core.durable.own_name`). An empty ``--out``, the filesystem root, the home
folder, the current folder or one of its parents, and a folder holding a ``.git`` are
refused (:func:`trackerlab.core.paths.check_out`, shared with ``sweep``).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import json
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from trackerlab.core import paths
from trackerlab.core.durable import (
    FolderLock,
    atomic_write_bytes,
    os_error_text,
    own_name,
    remove_leftovers,
)
from trackerlab.core.errors import UsageError
from trackerlab.core.safe_yaml import FileRefused, read_json

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
#: The files trackerlab wrote into a reports folder (relative paths), kept in the folder.
OWNED_LIST = ".trackerlab-report-files.json"
_MAX_OWNED_LIST_BYTES = 16 << 20

Signature = tuple[int, int]  # (size, mtime_ns)


def _renameat2_exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths; False if the platform lacks renameat2."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def check_out(out: Path | str) -> Path:
    """``out`` resolved, or UsageError if it is empty or a folder a report must not swap
    (:func:`trackerlab.core.paths.check_out`)."""
    return paths.check_out(out, "publish into", "reports/")


def check_writable(out: Path) -> None:
    """Raise UsageError unless ``out`` can be created or replaced by this process."""
    out = check_out(out)
    parent = out.parent
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise UsageError(f"--out {out}: cannot write there ({existing} is not a folder)")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = parent / own_name("probe")
        probe.mkdir(mode=0o700)
        probe.rmdir()
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None


@contextlib.contextmanager
def staged(out: Path, log: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Yield a staging folder seeded with a copy of ``out``; publish it if the block succeeds.

    Holds an exclusive lock so two runs cannot publish into the same folder at once. Any
    exception (including KeyboardInterrupt) removes the staging folder and re-raises.
    ``log`` is told about files in ``out`` that trackerlab did not write (they are kept).
    """
    out = check_out(out)
    check_writable(out)
    lock = FolderLock(
        out.parent / f".{out.name}.lock",
        f"--out {out}: another trackerlab report is publishing there",
    )
    with lock:
        removed = remove_leftovers(out.parent)
        if removed and log:
            log(f"removed {len(removed)} leftover staging or temporary files of killed runs")
        stage = out.parent / own_name("staging")
        stage.mkdir(mode=0o700)
        try:
            seed = _snapshot(out)
            owned = _owned(out, seed)
            if out.is_dir():
                shutil.copytree(out, stage, dirs_exist_ok=True, symlinks=True)
            before = _snapshot(stage)
            yield stage
            written, current = _take_in_changes(out, stage, seed, before, owned)
            clobbered = sorted(rel for rel in written if rel in seed and rel not in owned)
            if clobbered:
                listed = ", ".join(clobbered[:5]) + (", ..." if len(clobbered) > 5 else "")
                raise UsageError(
                    f"--out {out}: the report would replace {len(clobbered)} files trackerlab "
                    f"did not write ({listed}); move them or choose another --out (nothing "
                    "was changed)"
                )
            kept = _record_owned(stage, owned | written)
            _swap_into_place(stage, out)
            _take_in_late_files(stage, out, current)
            if kept and log:
                listed = ", ".join(kept[:5]) + (", ..." if len(kept) > 5 else "")
                log(f"{out}: kept {len(kept)} files trackerlab did not write ({listed})")
        finally:
            shutil.rmtree(stage, ignore_errors=True)


def _snapshot(folder: Path) -> dict[str, Signature]:
    """``{relative path: (size, mtime_ns)}`` of every file (and symlink) under ``folder``."""
    out: dict[str, Signature] = {}
    if not folder.is_dir():
        return out
    for path in folder.rglob("*"):
        if path.is_file() or path.is_symlink():
            st = path.lstat()
            out[path.relative_to(folder).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def _owned(out: Path, files: dict[str, Signature]) -> set[str]:
    """The files of ``out`` trackerlab wrote: its own list (:data:`OWNED_LIST`), read
    through the bounded reader, and nothing else. A folder without a readable list owns
    nothing: a file's content never makes it trackerlab's."""
    path = out / OWNED_LIST
    if not path.exists():
        return set()
    try:
        listed = read_json(path, "report file list", _MAX_OWNED_LIST_BYTES)["files"]
        return {f for f in listed if isinstance(f, str) and f in files}
    except (FileRefused, KeyError, TypeError):
        return set()


def _take_in_changes(
    out: Path,
    stage: Path,
    seed: dict[str, Signature],
    before: dict[str, Signature],
    owned: set[str],
) -> tuple[set[str], set[str]]:
    """Bring into ``stage`` what others changed in ``out`` since the run started, and undo
    the run's deletions of files trackerlab does not own; returns the files the run wrote
    and the files ``out`` held at this check."""
    now = _snapshot(stage)
    written = {rel for rel, sig in now.items() if before.get(rel) != sig}
    current = _snapshot(out)
    for rel in _folders(out) - _folders(stage):  # folders made during the run, empty ones too
        (stage / rel).mkdir(parents=True, exist_ok=True)
        shutil.copystat(out / rel, stage / rel)
    for rel, sig in current.items():
        if rel in written or rel == OWNED_LIST:
            continue
        deleted_by_run = rel in before and rel not in now
        if (deleted_by_run and rel not in owned) or (not deleted_by_run and seed.get(rel) != sig):
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(out / rel, stage / rel, follow_symlinks=False)
    for rel in seed.keys() - current.keys() - written:
        with contextlib.suppress(FileNotFoundError):
            (stage / rel).unlink()  # removed by someone else during the run
    return written, set(current)


def _folders(folder: Path) -> set[str]:
    """Relative paths of every folder under ``folder`` (not following symlinks)."""
    if not folder.is_dir():
        return set()
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_dir() and not p.is_symlink()
    }


def _record_owned(stage: Path, owned: set[str]) -> list[str]:
    """Write the owned list into ``stage``; return the other files it holds (kept)."""
    present = _snapshot(stage)
    mine = sorted(rel for rel in owned if rel in present and rel != OWNED_LIST)
    atomic_write_bytes(stage / OWNED_LIST, json.dumps({"files": mine}, indent=1).encode())
    return sorted(rel for rel in present if rel not in owned and rel != OWNED_LIST)


def _swap_into_place(stage: Path, out: Path) -> None:
    """Make ``stage`` the content of ``out``; the old content ends up at ``stage``. The
    folder keeps the mode ``out`` has (a new one: the mode the umask gives a new folder)."""
    os.chmod(stage, _folder_mode(out))
    if not out.exists():
        os.rename(stage, out)
        return
    if _renameat2_exchange(stage, out):
        return
    old = stage.with_name(own_name("old"))
    os.rename(out, old)
    os.rename(stage, out)
    os.rename(old, stage)


def _folder_mode(out: Path) -> int:
    """``out``'s permission bits, or, for a folder still to create, ``0o777`` less the
    umask (what ``mkdir`` would give it)."""
    try:
        return stat.S_IMODE(os.stat(out).st_mode)
    except FileNotFoundError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o777 & ~umask


def _take_in_late_files(old: Path, out: Path, checked: set[str]) -> None:
    """Files that reached the old folder after the last check (in the instant before the
    exchange) move into the published one."""
    if not old.is_dir():
        return
    for rel in _snapshot(old).keys() - checked - _snapshot(out).keys():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.rename(old / rel, target)


def publish_error(exc: OSError, out: Path) -> UsageError:
    """One line for a write that failed while building or publishing ``out``."""
    return UsageError(f"report: cannot write {os_error_text(exc)}; {out} is unchanged")
