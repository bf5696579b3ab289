"""Durable atomic writes, flock folder locks and one-line OS errors (trackerlab.core.durable)."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import stat

import pytest

from tests.conftest import dead_leftover
from trackerlab.core import durable
from trackerlab.core.errors import UsageError


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
    tmp, staging = dead_leftover("tmp"), dead_leftover("staging")
    (tmp_path / tmp).write_text("x")
    (tmp_path / staging).mkdir()
    (tmp_path / staging / "index.html").write_text("a killed run's copy")
    live = durable.tmp_name(tmp_path / "a.bin")  # this process's: a live writer's
    live.write_text("being written")
    keep = ["keep.txt", ".x.1.tmp", ".draft.tmp", ".trackerlab-report-files.json"]
    for name in keep:
        (tmp_path / name).write_text("k")
    link, folder = (dead_leftover("tmp").replace("0123", d) for d in ("9123", "8123"))
    os.symlink(tmp_path / "keep.txt", tmp_path / link)  # never followed, never removed
    (tmp_path / folder).mkdir()  # a folder with a file kind's name: not ours
    removed = durable.remove_leftovers(tmp_path)
    assert sorted(p.name for p in removed) == sorted([staging, tmp])
    assert (tmp_path / "keep.txt").read_text() == "k"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*keep, live.name, link, folder])


def test_own_names_carry_the_writer_pid_and_a_random_part(tmp_path):
    names = {durable.own_name("tmp") for _ in range(50)}
    assert len(names) == 50
    for name in names:
        assert re.fullmatch(rf"\.trackerlab-{os.getpid()}-[0-9a-f]{{12}}\.tmp", name), name
    assert durable.tmp_name(tmp_path / "x.json").parent == tmp_path
    full = OSError(errno.ENOSPC, "No space left on device", "/d/f")
    assert durable.os_error_text(full) == "/d/f: no space left on the device"
    copy_error = shutil.Error([("/a", "/b/c", "[Errno 13] Permission denied: '/b/c'")])
    assert durable.os_error_text(copy_error) == "/b/c: permission denied"
    with (
        pytest.raises(UsageError, match=r"^write: /d/f: no space left on the device$"),
        durable.usage_errors_from_os("write"),
    ):
        raise full
