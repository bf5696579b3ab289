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
- :func:`own_name` names every temporary file and staging folder trackerlab makes:
  ``.trackerlab-PID-RANDOM.KIND``. :func:`remove_leftovers` removes only entries with such a
  name whose writer (PID) is no longer running: temporary *files*, and staging *folders*
  owned by this user. A user's ``.draft.tmp`` or ``.backup.tmp-2024/`` is never touched.
- :func:`os_error_text` turns an ``OSError`` (disk full, permission, read-only filesystem)
  into the one-line reason :class:`~trackerlab.core.errors.UsageError` messages quote.

Stdlib only (core layer).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from trackerlab.core.errors import UsageError

#: Start of the name of every temporary file and staging folder trackerlab makes.
OWN_PREFIX = ".trackerlab-"
#: Kinds of :func:`own_name`: files (``tmp``) and folders (the others).
FILE_KINDS = ("tmp",)
FOLDER_KINDS = ("staging", "probe", "old")
_OWN_NAME = re.compile(
    rf"^{re.escape(OWN_PREFIX)}(?P<pid>[1-9][0-9]{{0,9}})-[0-9a-f]{{12}}"
    rf"\.(?P<kind>{'|'.join(FILE_KINDS + FOLDER_KINDS)})$"
)
_CHUNK = 1 << 20


def own_name(kind: str) -> str:
    """``.trackerlab-PID-RANDOM.KIND``: a name only trackerlab makes, with the writer's pid
    (so a later run can tell a dead writer's leftover from a live one's) and 48 random bits."""
    if kind not in FILE_KINDS + FOLDER_KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    return f"{OWN_PREFIX}{os.getpid()}-{secrets.token_hex(6)}.{kind}"


def tmp_name(path: Path) -> Path:
    """The temporary sibling :func:`atomic_write_bytes` writes first (:func:`own_name`)."""
    return Path(path).with_name(own_name("tmp"))


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
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        with os.fdopen(fd, "wb") as f:
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


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (ours or another user's). O(1)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process; not a pid at all
        return True
    return True


def leftover(path: Path) -> bool:
    """Whether ``path`` is what a killed trackerlab run left: an :func:`own_name` whose
    writer is not running, a regular file for a file kind, a real folder of this user for a
    folder kind (never a symlink, never another kind of entry). O(1)."""
    match = _OWN_NAME.match(path.name)
    if match is None or _running(int(match["pid"])):
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if match["kind"] in FILE_KINDS:
        return stat.S_ISREG(st.st_mode)
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()


def remove_leftovers(folder: Path) -> list[Path]:
    """Delete what killed runs left directly in ``folder`` (:func:`leftover`) and return it;
    nothing else is touched, whatever its name. Call it while holding the folder's lock."""
    removed: list[Path] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return removed
    for name in names:
        path = Path(folder) / name
        if not leftover(path):
            continue
        if path.is_dir():
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
