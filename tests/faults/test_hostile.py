"""Hostile folders and files (issue 31): nothing trackerlab did not write is deleted,
replaced or re-permissioned, a point file is adopted only if it holds its point, and every
file trackerlab reads goes through one bounded reader.

Data loss (each case failed on the commit before issue 31, ``base``):

- a sweep's lock removed every ``.*.tmp`` / ``.*.tmp-*`` in ``--out`` and ``points/``, folders
  included (a user's ``.draft.tmp`` and ``.backup.tmp-2024/``, exit 0);
- ``sweep --out`` took ``/``, ``~``, ``.``, ``..`` and a folder holding ``.git``;
- ``report`` took a file mentioning "trackerlab" in a folder without its file list as its own
  and replaced it;
- ``report`` left a ``chmod 700`` folder at ``0755`` and dropped an empty folder made during
  the run;
- with ``manifest.json`` deleted (or an entry without ``sha256``) a point file copied over
  another was adopted: a duplicated row and a missing one, exit 0.

Reading: a FIFO (hung), ``/dev/zero`` (never ended), JSON nested 100,000 deep (a
``RecursionError``), a NUL byte in a workload (a traceback), a file over the size bound. Each
is one line naming the file with exit 2, or, for a sweep point, a recomputation. The command
line cases run in a subprocess with a timeout, so a hang fails instead of blocking the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

from tests.conftest import FIXTURE_NOTEBOOKS, assert_one_line_error, dead_leftover, run_cli
from tests.faults.conftest import SMALL_GRID
from trackerlab.core.errors import UsageError
from trackerlab.reporting import publish
from trackerlab.spark.grid import load_grid
from trackerlab.spark.store import MANIFEST, POINTS, SweepStore, read_sweep

DEEP = "[" * 100_000 + "]" * 100_000
TIMEOUT_S = 300  # a hang (a FIFO read) fails the case instead of blocking the suite; a
# loaded machine (load 25 on 2 cores) took over 60 s to start `python -m trackerlab`


@pytest.fixture
def sweep(tmp_path):
    """A grid file and a finished sweep folder of its 3 points, written without Spark (one
    row per point holding the point's own columns): ``(grid file, store, grid)``."""
    grid_file = tmp_path / "g.yaml"
    grid_file.write_text(SMALL_GRID)
    grid = load_grid(grid_file)
    store = SweepStore(tmp_path / "sweep")
    store.lock()
    store.write_grid(grid.to_pandas(), grid.name, grid.source, [p.key for p in grid.points])
    for p in grid.points:
        row = {**p.columns(), "design": "triple-heap", "jvm_bytes": 1000 + p.grid_row}
        store.write_point(p.key, [row], {"grid_row": p.grid_row, "label": p.label()})
    store.unlock()
    return grid_file, store, grid


def _point(store: SweepStore, key: str):
    return store.root / POINTS / f"{key}.parquet"


def _dry_run(grid_file, out, **kwargs):
    return run_cli(
        "sweep",
        "--grid",
        str(grid_file),
        "--out",
        str(out),
        "--dry-run",
        timeout=TIMEOUT_S,
        **kwargs,
    )


def _states(result) -> list[str]:
    """'done' / 'todo' of each grid row a dry run lists."""
    return [line.split()[1] for line in result.stdout.splitlines() if line[:4].strip().isdigit()]


# --------------------------------------------------------------------------- data loss


def test_a_sweep_lock_removes_only_its_own_leftovers(sweep):
    _, store, _ = sweep
    users = {
        ".draft.tmp": "the user's draft",
        "points/.notes.tmp": "the user's notes",
        ".manifest.json.99.tmp": "a name older versions made, now a user's",
        "points/.x.parquet.tmp-777": "idem",
        ".backup.tmp-2024/f.txt": "a whole folder of the user's",
        ".trackerlab-1-abc.tmp": "not quite trackerlab's name",
    }
    for rel, text in users.items():
        (store.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (store.root / rel).write_text(text)
    dead = [store.root / dead_leftover("tmp"), store.root / POINTS / dead_leftover("tmp")]
    for path in dead:
        path.write_bytes(b"half written by a killed run")
    removed = store.lock()
    store.unlock()
    assert sorted(removed) == sorted(dead)
    for rel, text in users.items():
        assert (store.root / rel).read_text() == text, rel


@pytest.mark.parametrize("out", ["/", "~", ".", "..", "git"])
def test_sweep_out_gets_the_refusals_of_report_out(tmp_path, sweep, out):
    grid_file = sweep[0]
    (tmp_path / "git" / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    target = str(tmp_path / "git") if out == "git" else out
    env = {**os.environ, "HOME": str(home)}
    res = _dry_run(grid_file, target, env=env)  # a dry run: base wrote nothing there either
    assert_one_line_error(res, "--out", "refusing to write sweep results into")
    report = run_cli("report", "--out", target, "--only", "x", timeout=TIMEOUT_S, env=env)
    assert_one_line_error(report, "--out", "refusing to publish into")
    with pytest.raises(UsageError, match="refusing"):
        SweepStore(tmp_path / "git").check_writable()


def test_report_ownership_comes_from_its_list_never_from_content(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    mine = {"index.html": "<p>my trackerlab notes</p>", "overview.json": '{"by": "trackerlab"}'}
    for name, text in mine.items():
        (out / name).write_text(text)
    refused = pytest.raises(UsageError, match=r"would replace 2 files trackerlab did not write")
    with refused, publish.staged(out) as stage:
        for name in mine:
            (stage / name).write_text("a report")
    for name, text in mine.items():
        assert (out / name).read_text() == text


def test_report_keeps_the_folder_mode_and_empty_folders(tmp_path):
    out = tmp_path / "reports"
    (out / "before-empty").mkdir(parents=True)
    out.chmod(0o700)
    with publish.staged(out) as stage:
        (stage / "r.html").write_text("report")
        (out / "made-during-the-run").mkdir()
        (out / "made-during-the-run" / "nested-empty").mkdir()
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert (out / "before-empty").is_dir()
    assert (out / "made-during-the-run" / "nested-empty").is_dir()
    assert (out / "r.html").read_text() == "report"


@pytest.mark.parametrize("manifest", ["deleted", "entry without sha256"])
def test_a_point_copied_over_another_is_recomputed_not_adopted(sweep, manifest):
    _, store, grid = sweep
    first, second = grid.points[0].key, grid.points[1].key
    shutil.copyfile(_point(store, first), _point(store, second))
    if manifest == "deleted":
        (store.root / MANIFEST).unlink()
    else:
        data = json.loads((store.root / MANIFEST).read_text())
        del data["points"][second]["sha256"]
        (store.root / MANIFEST).write_text(json.dumps(data))
    keys = [p.key for p in grid.points]
    lines: list[str] = []
    assert store.completed(keys, lines.append) == set(keys) - {second}
    assert len(lines) == 1 and f"points/{second}.parquet" in lines[0], lines
    assert f"it holds point '{first}'" in lines[0] and lines[0].endswith("recomputing it")
    store.adopt(keys)
    assert "sha256" not in store.manifest()["points"].get(second, {})
    with pytest.raises(UsageError, match=rf"{second}\.parquet: damaged sweep point") as info:
        read_sweep(store.root, every_file=True)
    assert "\n" not in str(info.value)


def test_a_dry_run_lists_a_copied_point_as_to_do(sweep):
    grid_file, store, grid = sweep
    shutil.copyfile(_point(store, grid.points[0].key), _point(store, grid.points[1].key))
    (store.root / MANIFEST).unlink()
    res = _dry_run(grid_file, store.root)
    assert res.returncode == 0, res.stderr
    assert _states(res) == ["done", "todo", "done"]


# --------------------------------------------------------------------------- reading


def _fifo(path):
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _dev_zero(path):
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


def _deep(path):
    path.write_text(DEEP)


def _huge(path):
    path.write_bytes(b"")
    os.truncate(path, (64 << 20) + 1)  # sparse: over the 64 MiB bound of a manifest


MANIFEST_DAMAGE = {
    "a FIFO": (_fifo, "is not a regular file (a device, pipe or socket)"),
    "/dev/zero": (_dev_zero, "is not a regular file (a device, pipe or socket)"),
    "nested 100,000 deep": (_deep, "is nested deeper than 64 levels; refused"),
    "over the size bound": (_huge, "is larger than 65536 KiB; refused"),
}


@pytest.mark.parametrize("damage", list(MANIFEST_DAMAGE))
def test_a_hostile_manifest_is_one_line(sweep, damage):
    grid_file, store, _ = sweep
    make, reason = MANIFEST_DAMAGE[damage]
    make(store.root / MANIFEST)
    res = _dry_run(grid_file, store.root)
    assert_one_line_error(res, "sweep manifest", "manifest.json", reason, "move it away")


@pytest.mark.parametrize("damage", ["a FIFO", "/dev/zero", "nested 100,000 deep"])
def test_a_hostile_point_is_recomputed(sweep, damage):
    grid_file, store, grid = sweep
    MANIFEST_DAMAGE[damage][0](_point(store, grid.points[2].key))
    res = _dry_run(grid_file, store.root)
    assert res.returncode == 0, res.stderr
    assert _states(res) == ["done", "done", "todo"]


def test_a_workload_with_a_nul_byte_is_one_line(tmp_path):
    workload = tmp_path / "w.yaml"
    workload.write_bytes(b"rate: 20k/s\x00\n")
    res = run_cli("plan", "--workload", str(workload), timeout=TIMEOUT_S)
    assert_one_line_error(res, "w.yaml", "not valid YAML", "#x0000")


@pytest.mark.parametrize("damage", ["a FIFO", "/dev/zero", "nested 100,000 deep"])
def test_a_hostile_grid_or_workload_is_one_line(tmp_path, damage):
    make, _ = MANIFEST_DAMAGE[damage]
    for flag, command in (("--grid", ["sweep", "--dry-run"]), ("--workload", ["plan"])):
        path = tmp_path / f"{flag[2:]}.yaml"
        make(path)
        res = run_cli(*command, flag, str(path), timeout=TIMEOUT_S)
        assert_one_line_error(res, str(path.name))


@pytest.mark.parametrize("damage", ["a FIFO", "/dev/zero", "nested 100,000 deep"])
def test_a_hostile_notebook_or_profile_file_is_one_line(tmp_path, damage):
    make, reason = MANIFEST_DAMAGE[damage]
    notebooks = tmp_path / "notebooks"
    shutil.copytree(FIXTURE_NOTEBOOKS, notebooks)
    make(notebooks / "bad.ipynb")
    res = run_cli(
        "report", "--notebooks", str(notebooks), "--out", str(tmp_path / "out"),
        "--only", "bad", timeout=TIMEOUT_S,
    )  # fmt: skip
    assert_one_line_error(res, "bad.ipynb", reason.split(";")[0])
    make(notebooks / "profiles.yaml")
    res = run_cli(
        "report", "--notebooks", str(notebooks), "--out", str(tmp_path / "out"),
        timeout=TIMEOUT_S,
    )  # fmt: skip
    assert_one_line_error(res, "profiles.yaml")
    assert not (tmp_path / "out").exists()


def test_a_hostile_report_file_list_owns_nothing(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "index.html").write_text("the user's")
    _deep(out / publish.OWNED_LIST)
    with pytest.raises(UsageError, match="would replace 1 files"), publish.staged(out) as stage:
        (stage / "index.html").write_text("a report")
    assert (out / "index.html").read_text() == "the user's"
