import json
import os

import pytest

from tests.conftest import dead_leftover
from trackerlab.core.errors import UsageError
from trackerlab.reporting import publish


def _tree(folder):
    """Every file but the list of the files trackerlab wrote (checked on its own)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != getattr(publish, "OWNED_LIST", None)
    }


def _owns(out, *names):
    """``out`` as a run that wrote ``names`` left it: its list of the files it wrote."""
    (out / publish.OWNED_LIST).write_text(json.dumps({"files": list(names)}))


def test_staged_publishes_whole_folder_at_once(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "old.html").write_text("old trackerlab report")
    _owns(out, "old.html")
    (out / "keep.html").write_text("keep")
    with publish.staged(out) as stage:
        assert _tree(stage) == _tree(out)  # seeded with a copy
        (stage / "old.html").write_text("new")
        (stage / "added.html").write_text("added")
        assert (out / "old.html").read_text() == "old trackerlab report"  # not before the swap
    assert _tree(out) == {"old.html": b"new", "keep.html": b"keep", "added.html": b"added"}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]


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
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]


def test_exchange_fallback_without_renameat2(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "_renameat2_exchange", lambda a, b: False)
    out = tmp_path / "reports"
    out.mkdir()
    (out / "a.html").write_text("old trackerlab report")
    _owns(out, "a.html")
    with publish.staged(out) as stage:
        (stage / "a.html").write_text("new")
    assert (out / "a.html").read_text() == "new"


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


def test_files_others_add_edit_or_remove_during_a_run_are_respected(tmp_path):
    """Before issue 16 the copy made at the start replaced the folder: a note written to
    --out while the report rendered was gone afterwards."""
    out = tmp_path / "reports"
    out.mkdir()
    (out / "report.html").write_text("old trackerlab report")
    _owns(out, "report.html")
    (out / "edited.txt").write_text("v1")
    (out / "removed.txt").write_text("bye")
    logs: list[str] = []
    with publish.staged(out, logs.append) as stage:
        (stage / "report.html").write_text("new report")
        (out / "note.txt").write_text("written while rendering")
        (out / "sub").mkdir()
        (out / "sub" / "deep.txt").write_text("deep")
        (out / "edited.txt").write_text("v2")
        (out / "removed.txt").unlink()
    assert _tree(out) == {
        "report.html": b"new report",
        "note.txt": b"written while rendering",
        "sub/deep.txt": b"deep",
        "edited.txt": b"v2",
    }
    assert logs == [
        f"{out}: kept 3 files trackerlab did not write (edited.txt, note.txt, sub/deep.txt)"
    ]


def test_a_run_deletes_only_files_trackerlab_wrote(tmp_path):
    out = tmp_path / "reports"
    with publish.staged(out) as stage:
        (stage / "_failed").mkdir()
        (stage / "_failed" / "nb.ipynb").write_text("failed copy")
    (out / "_failed" / "nb.notes.txt").write_text("the user's")
    with publish.staged(out) as stage:  # a run clearing nb's failure: rm _failed/nb.*
        for stale in (stage / "_failed").glob("nb.*"):
            stale.unlink()
    assert _tree(out) == {"_failed/nb.notes.txt": b"the user's"}


def test_leftovers_of_killed_runs_are_removed_by_the_next_run(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    left = [tmp_path / dead_leftover("staging"), tmp_path / dead_leftover("probe")]
    for folder in left:
        folder.mkdir()
        (folder / "index.html").write_text("5.8 MB of a killed run")
    (tmp_path / dead_leftover("tmp")).write_text("x")
    users = [".reports.staging-x", ".reports.42.tmp", ".backup.tmp-2024"]  # older names too
    for name in users:
        (tmp_path / name).mkdir()
    logs: list[str] = []
    with publish.staged(out, logs.append):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*users, "reports"])
    assert logs[0] == "removed 3 leftover staging or temporary files of killed runs"


@pytest.mark.parametrize("bad", ["", " ", ".", "/"])
def test_empty_or_unsafe_out_is_refused(tmp_path, monkeypatch, bad):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="--out"):
        publish.check_out(bad)
    (tmp_path / "sub").mkdir(exist_ok=True)
    with pytest.raises(UsageError, match="refusing to publish into the current folder"):
        publish.check_out(tmp_path / "sub" / "..")
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    with pytest.raises(UsageError, match=r"holding a \.git repository"):
        publish.check_out(tmp_path / "proj")
    assert publish.check_out(tmp_path / "reports") == tmp_path / "reports"


def test_a_users_file_under_a_report_name_is_never_replaced(tmp_path):
    """A folder without trackerlab's list whose ``index.html`` is the user's own: the run
    refuses to publish over it, in one line, and changes nothing."""
    out = tmp_path / "reports"
    out.mkdir()
    (out / "index.html").write_text("USER INDEX")
    (out / "notes.txt").write_text("mine")
    with (
        pytest.raises(
            UsageError, match=r"would replace 1 files trackerlab did not write \(index.html\)"
        ),
        publish.staged(out) as stage,
    ):
        (stage / "index.html").write_text("<html>trackerlab</html>")
    assert (out / "index.html").read_text() == "USER INDEX"
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "notes.txt"]
