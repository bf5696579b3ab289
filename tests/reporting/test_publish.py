import os

import pytest

from trackerlab.errors import UsageError
from trackerlab.reporting import publish


def _tree(folder):
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_staged_publishes_whole_folder_at_once(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "old.html").write_text("old")
    (out / "keep.html").write_text("keep")
    with publish.staged(out) as stage:
        assert _tree(stage) == _tree(out)  # seeded with a copy
        (stage / "old.html").write_text("new")
        (stage / "added.html").write_text("added")
        assert (out / "old.html").read_text() == "old"  # nothing visible before the swap
    assert _tree(out) == {"old.html": b"new", "keep.html": b"keep", "added.html": b"added"}
    assert not [p for p in tmp_path.iterdir() if ".staging-" in p.name]


def test_staged_creates_missing_folder(tmp_path):
    out = tmp_path / "a" / "reports"
    with publish.staged(out) as stage:
        (stage / "x").write_text("1")
    assert (out / "x").read_text() == "1"


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyboardInterrupt()])
def test_failure_inside_leaves_folder_untouched(tmp_path, exc):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "report.html").write_text("published")
    before = _tree(out)
    with pytest.raises(type(exc)), publish.staged(out) as stage:
        (stage / "report.html").write_text("half-written")
        raise exc
    assert _tree(out) == before
    assert not [p for p in tmp_path.iterdir() if ".staging-" in p.name]


def test_exchange_fallback_without_renameat2(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "_renameat2_exchange", lambda a, b: False)
    out = tmp_path / "reports"
    out.mkdir()
    (out / "a").write_text("old")
    with publish.staged(out) as stage:
        (stage / "a").write_text("new")
    assert (out / "a").read_text() == "new"


def test_renameat2_really_exchanges(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "f").write_text("A")
    (b / "f").write_text("B")
    assert publish._renameat2_exchange(a, b)  # Linux with glibc >= 2.28 has it
    assert (a / "f").read_text() == "B" and (b / "f").read_text() == "A"


def test_unwritable_out(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UsageError, match="cannot write"):
        publish.check_writable(blocker / "reports")
    with pytest.raises(UsageError, match="not a folder"):
        publish.check_writable(blocker)


def test_concurrent_publish_is_refused(tmp_path):
    out = tmp_path / "reports"
    with (
        publish.staged(out),
        pytest.raises(UsageError, match="another trackerlab report"),
        publish.staged(out),
    ):
        pass
    assert os.path.isdir(out)
