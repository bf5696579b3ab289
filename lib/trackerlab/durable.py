"""Durable files and folder locks: what survives a crash, a full disk and a second writer.

- :func:`atomic_write_bytes` writes a file so that a reader (or the next run after a power
  cut) sees the old content or the new one, never a mix: a temporary file in the same folder,
  ``fsync``, ``rename`` over the target, ``fsync`` of the folder (the rename is only durable
  once the directory entry is). It returns the content's SHA-256, which callers record to
  verify the file later (:func:`sha256_file`).
- :class:`FolderLock` is an exclusive ``fcntl.flock`` on an open file descriptor, taken
  without waiting: the kernel releases it when the holder exits, however it exits, so there
  is no pid to guess and no stale lock to break. The lock file is removed on release; a
  racing process that locked the removed inode notices (its inode is no longer the path's)
  and tries again, so two holders are impossible.
- :func:`remove_leftovers` deletes the temporary files of killed runs; callers run it
  while holding their folder's lock, when no live writer can own them.
- :func:`os_error_text` turns an ``OSError`` (disk full, permission, read-only filesystem)
  into the one-line reason :class:`~trackerlab.errors.UsageError` messages quote.

Stdlib only (core layer).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from trackerlab.errors import UsageError

#: Suffix of every temporary file written by :func:`atomic_write_bytes`.
TMP_SUFFIX = ".tmp"
_CHUNK = 1 << 20


def tmp_name(path: Path) -> Path:
    """The temporary sibling :func:`atomic_write_bytes` writes first: ``.NAME.PID.tmp``."""
    return path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")


def fsync_dir(folder: Path) -> None:
    """Make the folder's entries (a rename, a new file) durable. O(1)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> str:
    """Write ``data`` to ``path`` durably and atomically; return its SHA-256 (hex).

    The temporary file is removed if anything fails (a full disk included), so a failed
    write leaves the old file, if any, untouched. O(len(data)).
    """
    path = Path(path)
    tmp = tmp_name(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """SHA-256 (hex) of a file's content, read in 1 MiB pieces. O(size)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def remove_leftovers(folder: Path, patterns: Iterable[str]) -> list[Path]:
    """Delete what matches ``patterns`` (globs) directly in ``folder``: temporary files and
    staging folders of killed runs. Call it only while holding the folder's lock."""
    removed = []
    if not folder.is_dir():
        return removed
    for pattern in patterns:
        for path in sorted(folder.glob(pattern)):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            removed.append(path)
    return removed


class FolderLock:
    """An exclusive, non-blocking ``flock`` on ``path`` (created if missing).

    ``busy`` is the one-line message of the UsageError raised when another process holds
    it. Use as a context manager, or :meth:`acquire` / :meth:`release`.
    """

    def __init__(self, path: Path, busy: str) -> None:
        self.path = Path(path)
        self.busy = busy
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            return
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise UsageError(self.busy) from None
            except BaseException:
                os.close(fd)
                raise
            mine = os.fstat(fd)
            try:
                now = os.stat(self.path)
            except FileNotFoundError:
                now = None
            if now is not None and (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                break
            os.close(fd)  # the holder removed this inode while we waited: try the new one
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # for people; never read to decide
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()  # while still holding it: see the class docstring
        finally:
            os.close(fd)

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EISDIR: "is a folder",
    errno.ENOENT: "no such file or folder",
    errno.EIO: "input/output error",
}


def os_error_text(exc: OSError) -> str:
    """``'PATH: no space left on the device'``: the file and the reason, one line (for a
    ``shutil.Error`` of a tree copy: its first failed file)."""
    failed = exc.args[0] if isinstance(exc, shutil.Error) and exc.args else None
    if isinstance(failed, list) and failed:
        _, dst, why = failed[0]
        code = re.search(r"\[Errno (\d+)\]", str(why))
        reason = _REASONS.get(int(code.group(1))) if code else None
        return f"{dst}: {reason or str(why).splitlines()[0]}"
    reason = _REASONS.get(exc.errno or 0) or (exc.strerror or type(exc).__name__).lower()
    where = exc.filename if exc.filename is not None else ""
    return f"{where}: {reason}" if where else reason


@contextlib.contextmanager
def usage_errors_from_os(what: str, hint: Callable[[OSError], str] | None = None) -> Iterator[None]:
    """Turn an ``OSError`` raised inside into one UsageError line: ``WHAT: PATH: reason``."""
    try:
        yield
    except OSError as exc:
        extra = hint(exc) if hint else ""
        raise UsageError(f"{what}: {os_error_text(exc)}{extra}") from None
