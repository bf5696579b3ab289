"""Durable atomic writes, flock folder locks and one-line OS errors (trackerlab.durable)."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat

import pytest

from trackerlab import durable
from trackerlab.errors import UsageError


def test_atomic_write_fsyncs_the_file_and_its_folder(tmp_path, monkeypatch):
    synced: list[str] = []
    real = os.fsync

    def spy(fd):
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    target = tmp_path / "a.bin"
    digest = durable.atomic_write_bytes(target, b"hello")
    assert target.read_bytes() == b"hello"
    assert digest == hashlib.sha256(b"hello").hexdigest() == durable.sha256_file(target)
    assert synced == ["file", "dir"]  # data first, then the rename's directory entry
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "a.bin"
    durable.atomic_write_bytes(target, b"old")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        durable.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]


def test_folder_lock_refuses_a_second_holder_and_removes_its_file(tmp_path):
    path = tmp_path / ".lock"
    with durable.FolderLock(path, "busy here"):
        assert path.read_text().strip() == str(os.getpid())
        with pytest.raises(UsageError, match="busy here"):
            durable.FolderLock(path, "busy here").acquire()
    assert not path.exists()
    path.write_text("123456789\n")  # a stale file of a dead holder: not a lock
    with durable.FolderLock(path, "busy"):
        pass


def test_leftovers_and_os_error_text(tmp_path):
    (tmp_path / ".x.1.tmp").write_text("x")
    (tmp_path / ".r.staging-abc").mkdir()
    (tmp_path / "keep.txt").write_text("k")
    removed = durable.remove_leftovers(tmp_path, [".*.tmp", ".r.staging-*"])
    assert sorted(p.name for p in removed) == [".r.staging-abc", ".x.1.tmp"]
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
    full = OSError(errno.ENOSPC, "No space left on device", "/d/f")
    assert durable.os_error_text(full) == "/d/f: no space left on the device"
    copy_error = shutil.Error([("/a", "/b/c", "[Errno 13] Permission denied: '/b/c'")])
    assert durable.os_error_text(copy_error) == "/b/c: permission denied"
    with (
        pytest.raises(UsageError, match=r"^write: /d/f: no space left on the device$"),
        durable.usage_errors_from_os("write"),
    ):
        raise full
