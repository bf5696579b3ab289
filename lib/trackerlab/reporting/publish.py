"""Atomic publishing of a reports folder.

A run builds the complete new folder next to the published one (same filesystem), then
exchanges the two in one ``renameat2(RENAME_EXCHANGE)`` call (Linux >= 3.15, glibc >= 2.28),
so a reader sees either the old folder or the new one, never a mix. Where the call is not
available the fallback is two renames with a window of microseconds. A failed or
interrupted run only removes its staging folder; the published folder is never touched.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from trackerlab.errors import UsageError

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


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


def check_writable(out: Path) -> None:
    """Raise UsageError unless ``out`` can be created or replaced by this process."""
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


@contextlib.contextmanager
def staged(out: Path) -> Iterator[Path]:
    """Yield a staging folder seeded with a copy of ``out``; publish it if the block succeeds.

    Holds an exclusive lock so two runs cannot publish into the same folder at once. Any
    exception (including KeyboardInterrupt) removes the staging folder and re-raises.
    """
    check_writable(out)
    lock_path = out.parent / f".{out.name}.lock"
    with open(lock_path, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(
                f"--out {out}: another trackerlab report is publishing there"
            ) from None
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=out.parent))
        try:
            if out.is_dir():
                shutil.copytree(out, stage, dirs_exist_ok=True, symlinks=True)
            yield stage
            _swap_into_place(stage, out)
        finally:
            shutil.rmtree(stage, ignore_errors=True)


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
