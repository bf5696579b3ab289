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
deletes only files of that list, and tells the user which other files it kept. One
``flock`` (:class:`trackerlab.durable.FolderLock`) keeps two runs from publishing into the
same folder at once; whoever holds it removes the staging folders and temporary files of
killed runs. An empty ``--out``, the filesystem root, the home folder, the current folder or
one of its parents, and a folder holding a ``.git`` are refused.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from trackerlab.durable import FolderLock, atomic_write_bytes, os_error_text, remove_leftovers
from trackerlab.errors import UsageError

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
#: The files trackerlab wrote into a reports folder (relative paths), kept in the folder.
OWNED_LIST = ".trackerlab-report-files.json"
#: Without a list (a folder published before it existed): what counts as trackerlab's.
_LEGACY_OWNED = ("index.html", "*.ipynb", "*.html", "*.json", "_failed/*")

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
    """``out`` resolved, or UsageError if it is empty or a folder a report must not swap:
    the root, the home folder, the current folder or a parent of it, a folder with ``.git``."""
    if not str(out).strip():
        raise UsageError("--out must name a folder, got ''")
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
            f"--out {path}: refusing to publish into {why} (the whole folder is replaced); "
            "give a folder of its own, such as reports/"
        )
    return path


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
        with tempfile.TemporaryDirectory(prefix=f".{out.name}.probe-", dir=parent):
            pass
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None


def leftovers(out: Path) -> tuple[str, ...]:
    """Globs, in ``out.parent``, of what killed runs leave: staging copies, probes, temporaries."""
    return (f".{out.name}.staging-*", f".{out.name}.probe-*", f".{out.name}.*.tmp")


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
        removed = remove_leftovers(out.parent, leftovers(out))
        if removed and log:
            log(f"removed {len(removed)} leftover staging or temporary files of killed runs")
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=out.parent))
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
    """The files of ``out`` trackerlab wrote, from its list (or, before lists, by name)."""
    try:
        listed = json.loads((out / OWNED_LIST).read_text())["files"]
        return {f for f in listed if isinstance(f, str)}
    except (OSError, ValueError, KeyError, TypeError):
        return {
            rel
            for rel in files
            if any(Path(rel).match(p) for p in _LEGACY_OWNED) and _mentions_trackerlab(out / rel)
        }


def _mentions_trackerlab(path: Path) -> bool:
    """A file of a folder written before the owned lists counts as trackerlab's only if it
    says so (every report, notebook, index and metadata file names trackerlab in its first
    MiB); a user's own ``index.html`` there is kept, not replaced."""
    try:
        with open(path, "rb") as f:
            return b"trackerlab" in f.read(1 << 20)
    except OSError:
        return False


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


def _record_owned(stage: Path, owned: set[str]) -> list[str]:
    """Write the owned list into ``stage``; return the other files it holds (kept)."""
    present = _snapshot(stage)
    mine = sorted(rel for rel in owned if rel in present and rel != OWNED_LIST)
    atomic_write_bytes(stage / OWNED_LIST, json.dumps({"files": mine}, indent=1).encode())
    return sorted(rel for rel in present if rel not in owned and rel != OWNED_LIST)


def _swap_into_place(stage: Path, out: Path) -> None:
    """Make ``stage`` the content of ``out``; the old content ends up at ``stage``."""
    os.chmod(stage, 0o755)
    if not out.exists():
        os.rename(stage, out)
        return
    if _renameat2_exchange(stage, out):
        return
    old = stage.with_name(stage.name + ".old")
    os.rename(out, old)
    os.rename(stage, out)
    os.rename(old, stage)


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
